"""The first answer as whole processes: ``python benchmarks/bench_first_answer.py [--runs 5]``.

Times, with :func:`time.perf_counter` around :func:`subprocess.run`, the median of ``--runs`` processes of

- ``python -c "import numpy, scipy"`` (the floor any NumPy/SciPy program pays),
- ``python -m symrmt theory --f 'tanh(x)' --c 1 --gamma 0.1`` with an empty disk cache (the first call: nothing in
  the user's cache, the package's shipped compiled systems present, so it computes tanh's Hermite data and derives
  nothing; see :mod:`symrmt.models.shipped`),
- the same first call from a copy of the package without its shipped systems (what a first call cost before they
  were shipped: it derives the attention and linear systems and generates their code),
- the same with the disk cache the previous call left (a repeated call),

all in the same run, and prints the load average beside each figure (the machine may be shared). ``--custom``
instead times a new f's first answer by command (:data:`CUSTOM`: custom f's, a parametric f, ``hermite``, ``latex``
and ``check``), each from an empty cache, beside the floor and tanh's first call in the same run; a command that
leaves SymPy's closed-form search to a background process (``hermite`` and ``latex`` of an f with numeric data,
:mod:`symrmt.nonlinearity.background`) is timed to its answer, and the next run waits until that search has written
its entry (the wall seconds it took are printed: when a later call has the closed forms), so that no search competes
with the next row. The CPU column counts the process and the children it waited for, not the detached search. Then where the
time of a repeated call goes (``--breakdown``, on by default): a child process that runs the call's stages one by one,
each timed in wall and CPU seconds (CPU time is less sensitive to the load of other processes): Python with NumPy and
SciPy, the command line's imports, SymPy, f's Hermite data (parsed, read from the Hermite cache and checked), the
systems (the shipped entries read and checked), and the solve and print (``main`` itself, all else in memory).
``python -X importtime -m symrmt theory ...`` and ``python -m cProfile -s cumtime -m symrmt theory ...`` go deeper;
docs/performance.md has the table.

    python benchmarks/bench_first_answer.py --runs 5
    python benchmarks/bench_first_answer.py --runs 3 --custom
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
THEORY = [sys.executable, "-m", "symrmt", "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1"]
FLOOR = [sys.executable, "-c", "import numpy, scipy"]
SYMRMT = [sys.executable, "-m", "symrmt"]
#: A new f's first answer, each from an empty cache (the rows ``--custom`` adds): custom f's that SymPy has no
#: quick closed form for, a parametric f, and the commands that show closed forms or run the catalogue.
CUSTOM = {
    "theory tanh(2x)/2 + x^3/10": ["theory", "--f", "tanh(2*x)/2 + x**3/10", "--c", "1", "--gamma", "0.01,0.1,1,10"],
    "theory gelu --center": ["theory", "--f", "gelu(x)", "--center", "--c", "1", "--gamma", "0.01,0.1,1,10"],
    "theory softsign": ["theory", "--f", "softsign(x)", "--c", "1", "--gamma", "0.01,0.1,1,10"],
    "theory tanh(s*x), s = 0.5:2:20": ["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1",
                                       "--param", "s=0.5:2:20"],
    "hermite tanh(2x)/2 + x^3/10": ["hermite", "--f", "tanh(2*x)/2 + x**3/10"],
    "latex tanh(a*x) + b*(x^2 - 1)": ["latex", "--f", "tanh(a*x)+b*(x**2-1)"],
    "check softsign --examples 1": ["check", "--f", "softsign(x)", "--examples", "1"],
}

STAGES = r'''
import os, sys, time
marks = [("python start", time.perf_counter(), time.process_time())]
def mark(label):
    marks.append((label, time.perf_counter(), time.process_time()))
import numpy, scipy
mark("import numpy, scipy")
from symrmt.cli import main
mark("symrmt command line imports")
import sympy
mark("import sympy (what is left of it)")
import symrmt
symrmt.hermite("tanh(x)")
mark("Hermite data of tanh (parse, cache read, check)")
from symrmt import models
for model in (models.ATTENTION, models.LINEAR):
    model.system_summary(1), model.compiled(1, model.auto_form)
mark("systems (shipped entries read, checked)")
stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
main(["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1"])
sys.stdout = stdout
mark("solve and print (main)")
for (_, w0, c0), (label, w1, c1) in zip(marks, marks[1:]):
    print(f"  {label:48s} {w1 - w0:6.3f} s wall {c1 - c0:6.3f} s CPU")
print(f"  {'in all (after the interpreter started)':48s} {marks[-1][1] - marks[0][1]:6.3f} s wall "
      f"{marks[-1][2] - marks[0][2]:6.3f} s CPU")
'''


#: The processes' environment: bytecode kept in a scratch folder (an installed package has its .pyc files; a
#: development shell with PYTHONDONTWRITEBYTECODE=1 would compile every module of symrmt in every process).
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CPU: list[float] = []


def _once(command: list[str], cache: str, root: pathlib.Path = ROOT) -> float:
    """Wall seconds of one process (run in ``root``); its CPU seconds (user + system) are appended to :data:`CPU`."""
    env = {**ENVIRONMENT, "SYMRMT_CACHE_DIR": cache, "PYTHONPATH": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def _settle(cache: str, limit: float = 150.0) -> float | None:
    """Wait until the background searches a call started in ``cache`` have written their entries (an entry's
    ``searched`` is below 60 s until then) and hold no lock (``hermite/.<entry>.lock``); the seconds waited, or None
    when no search was started."""
    folder = pathlib.Path(cache, "hermite")
    if not list(folder.glob(".*.lock")):
        return None
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        pending = any(json.loads(entry.read_text()).get("searched", 0) < 60 for entry in folder.glob("*.json"))
        for lock in folder.glob(".*.lock"):
            with open(lock, "a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pending = True
        if not pending:
            break
        time.sleep(0.25)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="processes per figure (the median is printed)")
    parser.add_argument("--no-breakdown", action="store_true", help="skip where the time of a repeated call goes")
    parser.add_argument("--custom", action="store_true",
                        help="only the floor, tanh's first call and a new f's first answer by command (CUSTOM)")
    arguments = parser.parse_args()
    runs = arguments.runs
    rows = []
    with tempfile.TemporaryDirectory(prefix="symrmt-bench-") as scratch:
        ENVIRONMENT["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "bytecode")
        subprocess.run([sys.executable, "-m", "compileall", "-q", "symrmt"], cwd=ROOT, env=ENVIRONMENT, check=True,
                       stdout=subprocess.DEVNULL)
        floor = [_once(FLOOR, "off") for _ in range(runs)]
        rows.append(("python -c 'import numpy, scipy'", floor, CPU[:], os.getloadavg()[0]))
        if arguments.custom:
            return custom(rows, runs, scratch)
        first, repeated, first_cpu, repeated_cpu = [], [], [], []
        for k in range(runs):
            cache = os.path.join(scratch, f"cache{k}")
            first.append(_once(THEORY, cache))           # an empty cache: nothing derived, nothing compiled yet
            first_cpu.append(CPU[-1])
            repeated.append(_once(THEORY, cache))        # what the first call left on disk
            repeated_cpu.append(CPU[-1])
        rows.append(("symrmt theory tanh, first call", first, first_cpu, os.getloadavg()[0]))
        rows.append(("symrmt theory tanh, repeated call", repeated, repeated_cpu, os.getloadavg()[0]))
        bare = pathlib.Path(scratch) / "without shipped systems"
        shutil.copytree(ROOT / "symrmt", bare / "symrmt", ignore=shutil.ignore_patterns("shipped_systems", "__pycache__"))
        subprocess.run([sys.executable, "-m", "compileall", "-q", "symrmt"], cwd=bare, env=ENVIRONMENT, check=True,
                       stdout=subprocess.DEVNULL)
        unshipped, unshipped_cpu = [], []
        for k in range(runs):
            unshipped.append(_once(THEORY, os.path.join(scratch, f"bare{k}"), bare))
            unshipped_cpu.append(CPU[-1])
        rows.append(("  first call, nothing shipped", unshipped, unshipped_cpu, os.getloadavg()[0]))
        _table(rows, runs)
        breakdown(arguments, scratch)


def custom(rows: list, runs: int, scratch: str) -> None:
    """A new f's first answer by command, from an empty cache each time, beside tanh's first call (same run)."""
    cases = {"theory tanh (first call)": THEORY[3:], **CUSTOM}
    searches = []
    for label, argv in cases.items():
        times, cpu = [], []
        for k in range(runs):
            cache = os.path.join(scratch, f"{len(rows)}-{k}")
            times.append(_once([*SYMRMT, *argv], cache))
            cpu.append(CPU[-1])
            waited = _settle(cache)
            if waited is not None:
                searches.append(f"{label}: the background search wrote its entry {times[-1] + waited:.1f} s after "
                                "the call started")
        rows.append((label, times, cpu, os.getloadavg()[0]))
    _table(rows, runs)
    print("\n".join(searches))
    print("target: a new f's first answer < 1.5 s (on 2 cores at load about 1); CPU includes SymPy's children")


def _table(rows: list, runs: int) -> None:
    print(f"{'process':36s} {'median':>8s} {'min':>7s} {'max':>7s} {'CPU':>7s}  load (1 min)   ({runs} runs, "
          f"{os.cpu_count()} CPUs; CPU: median user + system seconds)")
    for label, times, cpu, load in rows:
        print(f"{label:36s} {statistics.median(times):7.2f}s {min(times):6.2f}s {max(times):6.2f}s "
              f"{statistics.median(cpu):6.2f}s  {load:5.2f}")


def breakdown(arguments: argparse.Namespace, scratch: str) -> None:
    """Where a repeated call's time goes (see the module docstring)."""
    print("targets: first call < 1.5 s, repeated call < 1 s (on 2 cores)")
    if arguments.no_breakdown:
        return
    cache = os.path.join(scratch, "breakdown")
    _once(THEORY, cache)                          # the first call fills the caches
    env = {**ENVIRONMENT, "SYMRMT_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    print(f"where a repeated call's time goes (load {os.getloadavg()[0]:.2f}):")
    subprocess.run([sys.executable, "-c", STAGES], cwd=ROOT, env=env, check=True)


if __name__ == "__main__":
    main()
