"""Hermite data of an f with a parameter and no closed form, against a closed-form f: ``python benchmarks/bench_parametric.py``.

Prints, in one process and the same run, the time of ``h.numeric`` for one new parameter value and for a grid
of 100 values, for softplus with a temperature, ``T*softplus(x/T)`` (no closed form in T: float64 Gauss-Hermite
and composite Gauss-Legendre, mpmath only where their estimate refuses a point), for the closed form
``erf(s*x)`` (its compiled expression: the baseline), and for the route numeric() took before (the 30-digit
mpmath quadrature at one point, ``hermite(f at T, method="numeric")``). Building ``h = hermite(f)`` (closed
forms looked for in SymPy under a CPU budget, and the probes that check them) is timed once, apart.
Every new value is drawn fresh so that no cache answers. The load average is printed beside the figures.

    python benchmarks/bench_parametric.py
"""
from __future__ import annotations

import os
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


def main() -> None:
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
    T = next(iter(soft.parameters))
    old = _time(lambda: hermite(soft.f.xreplace({T: sp.Float(_fresh(rng), 30)}), method="numeric"))
    print(f"{'f':42s} {'one new value':>14s} {'100 values':>11s}   (median of 5 / 3)")
    for label, one, grid in rows:
        print(f"{label:42s} {one * 1e3:11.1f} ms {grid * 1e3:8.1f} ms")
    print(f"{'T*softplus(x/T)  mpmath 30 digits (old)':42s} {old * 1e3:11.1f} ms {'~' + format(100 * old, '.0f'):>7s} s"
          " (100 x one)")
    print("targets: one value < 500 ms, 100 values < 2000 ms")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
