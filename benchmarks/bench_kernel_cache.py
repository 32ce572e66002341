"""Compiling the pointwise kernels against loading them from the disk cache: ``python benchmarks/bench_kernel_cache.py``.

Runs three processes with one fresh cache folder: the first compiles the kernels of the rank-1 attention system
(algebraic form) and stores them (:mod:`symrmt.runtime.kernel_cache`), the next two load them. Each prints the
time of its kernels (Numba's import included) and of the derivation before them; the load average is printed
first and last. Needs Numba (``symrmt[fast]``).

    python benchmarks/bench_kernel_cache.py
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

CHILD = r'''
import time
t0 = time.perf_counter()
from symrmt.runtime import jit
from symrmt.codegen import numba_backend
made = []
original = numba_backend.PointwiseKernel.__init__
def remember(self, *args, **kwargs):
    original(self, *args, **kwargs)
    made.append(self)
numba_backend.PointwiseKernel.__init__ = remember
from symrmt import models
from symrmt.codegen import compile_system
compile_system(models.get("attention").system(1, "algebraic"))
t1 = time.perf_counter()
with jit.mode("always"):
    ready = sum(k.machine_code() is not None for k in made)
t2 = time.perf_counter()
print(f"{len(made)} pointwise kernels ({ready} compiled or loaded): {t2 - t1:.2f} s "
      f"(derivation and NumPy code before them {t1 - t0:.2f} s)")
'''


def main() -> None:
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="symrmt-kernels-") as cache:
        for label in ("first process (compiles, stores)", "second process (loads)", "third process (loads)"):
            run = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env={**os.environ, "SYMRMT_CACHE_DIR": cache},
                                 capture_output=True, text=True, check=True)
            print(f"{label:34s} {run.stdout.strip()}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
