"""Hermite data of an f with a parameter and no closed form, against a closed-form f: ``python benchmarks/bench_parametric.py``.

Prints, in one process and the same run, the time of ``h.numeric`` for one new parameter value and for a grid
of 100 values, for softplus with a temperature, ``T*softplus(x/T)`` (no closed form in T: float64 Gauss-Hermite
and composite Gauss-Legendre, mpmath only where their estimate refuses a point), for the closed form
``erf(s*x)`` (its compiled expression: the baseline), and for the route numeric() took before (the 30-digit
mpmath quadrature at one point, ``hermite(f at T, method="numeric")``). Building ``h = hermite(f)`` (closed
forms looked for in SymPy under a CPU budget, and the probes that check them) is timed once, apart.
Every new value is drawn fresh so that no cache answers. The load average is printed beside the figures.

It also times ``h.at(T=...)`` (one new value as an object, the route of ``hermite(f, params=...)`` and of the
command line), and whole ``symrmt hermite`` and ``symrmt theory`` processes with one new value and with a grid of
100 (``--param T=0.5:2:100``), for both f, with a disk cache that already holds what ``hermite(f)`` found in the
parameters (as after a first use): the per-process floor (imports, the attention system) is the same for both f.

    python benchmarks/bench_parametric.py [--no-cli]
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import sympy as sp

from symrmt.nonlinearity import hermite


def _fresh(rng: np.random.Generator, size: int | None = None):
    """Parameter values never seen before in this process (so no in-memory cache answers)."""
    return rng.uniform(0.3, 3.0, size)


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


ROOT = pathlib.Path(__file__).resolve().parent.parent
FORMULAS = (("T*softplus(x/T)", "T", ["--center"]), ("erf(s*x)", "s", []))


#: The processes' environment: bytecode kept in a scratch folder (as an installed package has its .pyc files).
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _process(argv: list[str], cache: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "symrmt", *argv], cwd=ROOT, env={**ENVIRONMENT, "SYMRMT_CACHE_DIR": cache},
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def cli(rng: np.random.Generator, runs: int = 3) -> None:
    """Whole processes of ``symrmt hermite`` and ``symrmt theory``, one new value and a grid of 100, both f."""
    print(f"command-line processes (median of {runs}; a new value each run), load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="symrmt-bench-") as cache:
        ENVIRONMENT["PYTHONPYCACHEPREFIX"] = os.path.join(cache, "bytecode")
        subprocess.run([sys.executable, "-m", "compileall", "-q", "symrmt"], cwd=ROOT, env=ENVIRONMENT, check=True,
                       stdout=subprocess.DEVNULL)
        for formula, name, extra in FORMULAS:               # what hermite(f) finds in the parameters, kept on disk
            _process(["hermite", "--f", formula, *extra, "--param", f"{name}=1.1"], cache)
        for command, tail in (("hermite", []), ("theory", ["--c", "1", "--gamma", "0.1"])):
            for formula, name, extra in FORMULAS:
                base = [command, "--f", formula, *extra, *tail, "--param"]
                one = [_process([*base, f"{name}={_fresh(rng):.6f}"], cache) for _ in range(runs)]
                grid = [_process([*base, f"{name}={_fresh(rng):.6f}:{_fresh(rng) + 3:.6f}:100"], cache)
                        for _ in range(runs)]
                print(f"  symrmt {command:7s} --f {formula:16s} one new value {statistics.median(one):6.2f} s   "
                      f"100 values {statistics.median(grid):6.2f} s   load {os.getloadavg()[0]:.2f}")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import numpy, scipy"], env=ENVIRONMENT, check=True)
    print(f"  floor: python -c 'import numpy, scipy' {time.perf_counter() - start:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line processes")
    with_cli = not parser.parse_args().no_cli
    os.environ.setdefault("SYMRMT_CACHE_DIR", "off")          # the disk cache would answer the old route
    rng = np.random.default_rng(1)
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")
    build = _time(lambda: hermite("T*softplus(x/T)"))
    print(f"hermite('T*softplus(x/T)') built once (SymPy's search for closed forms, probes): {build:.2f} s")
    soft, erf = hermite("T*softplus(x/T)"), hermite("erf(s*x)")
    print(f"sources found for T*softplus(x/T): {soft.source}")
    soft.numeric(T=1.0), erf.numeric(s=1.0)                    # compile each f to NumPy once, as any session does
    rows = []
    for label, one, grid in (
        ("T*softplus(x/T)  float64 + estimate", lambda: soft.numeric(T=_fresh(rng)),
         lambda: soft.numeric(T=_fresh(rng, 100))),
        ("erf(s*x)         closed form (baseline)", lambda: erf.numeric(s=_fresh(rng)),
         lambda: erf.numeric(s=_fresh(rng, 100))),
    ):
        ones = [_time(one) for _ in range(5)]
        grids = [_time(grid) for _ in range(3)]
        rows.append((label, float(np.median(ones)), float(np.median(grids))))
    at_rows = [(label, float(np.median([_time(lambda: h.at(**{name: _fresh(rng)})) for _ in range(5)])))
               for label, h, name in (("T*softplus(x/T)  .at(T=new)", soft, "T"),
                                      ("erf(s*x)         .at(s=new) (baseline)", erf, "s"))]
    T = next(iter(soft.parameters))
    old = _time(lambda: hermite(soft.f.xreplace({T: sp.Float(_fresh(rng), 30)}), method="numeric"))
    print(f"{'f':42s} {'one new value':>14s} {'100 values':>11s}   (median of 5 / 3)")
    for label, one, grid in rows:
        print(f"{label:42s} {one * 1e3:11.1f} ms {grid * 1e3:8.1f} ms")
    print(f"{'T*softplus(x/T)  mpmath 30 digits (old)':42s} {old * 1e3:11.1f} ms {'~' + format(100 * old, '.0f'):>7s} s"
          " (100 x one)")
    for label, one in at_rows:
        print(f"{label:42s} {one * 1e3:11.1f} ms")
    print("targets: one value < 500 ms, 100 values < 2000 ms")
    print(f"load average after: {os.getloadavg()}")
    if with_cli:
        cli(rng)


if __name__ == "__main__":
    main()
