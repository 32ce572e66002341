"""Speed of the theory, measured (not asserted): run ``python benchmarks/bench_solver.py``.

Prints, each next to a baseline measured in the same run:

1. a 200-point gamma curve (target < 50 ms after the first build), against the
   same 200 points solved one call at a time (the notebook way);
2. vectorized throughput on a random cloud of 10^4 parameter points (target
   >= 10^4 points per second), against the same one call at a time on a sample;
3. the one-time symbolic build for a new f in a fresh process (target < 10 s):
   Hermite coefficients, derivation and code generation, against the bare
   interpreter start-up with numpy, sympy and scipy imported;
4. rank-3 weights: the 200-point curve and a 10^4-point cloud of random 7 x 7 Gram
   matrices, against rank 1 on the same points;
5. the theory of a 100-point curve against the Monte Carlo of the same curve (the
   speed-up a user gets from the theory);
6. a 400-point eigenvalue density curve (gram and kernel matrices, eta = 0 and
   eta = 0.05), against the 200-point error curve;
7. how fast hopeless inputs are refused (the tests assert only that they are): gamma = 1e-12
   at c = 1 stalls the continuation at round-off (was 170 s before the MIN_RATIO rule) and
   gamma = 1e-10 outgrows the quadrature, against the solvable gamma = 1e-4 there;
8. ``form="auto"`` (the default) and ``form="algebraic"`` against the quadrature form, in the same run
   (``forms``): the 200-point
   curve (target < 10 ms), a random cloud at rank 1 (target >= 1e5 points/s), a 400-point
   density at eta = 0 (target < 0.2 s) and the first build for a new f in a fresh process
   (target < 10 s), each line with the machine's load (``uptime``); the curve and the cloud as NumPy code
   and with the Numba kernels compiled (``symrmt.runtime.jit``, when Numba is installed).

Run ``python benchmarks/bench_solver.py [curve cloud build rank speedup density refusal forms]`` for a subset.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from symrmt.geometry import Geometry
from symrmt.theory import attention_error, solve_attention
from timing import best_of

TANH = (0.6057055, 0.3942945)


def curve() -> None:
    gamma = np.geomspace(1e-3, 1e2, 200)
    geometry = Geometry(1.5, 1.0, 1.0, 1.0, 1.0, 1.0)
    attention_error(TANH, 1.0, gamma, geometry)                     # first build (not timed)
    vectorized = best_of(lambda: attention_error(TANH, 1.0, gamma, geometry))
    looped = best_of(lambda: [attention_error(TANH, 1.0, g, geometry) for g in gamma], repeat=2)
    print(f"200-point gamma curve: {1e3 * vectorized:7.1f} ms   (target < 50 ms; "
          f"one call per point: {1e3 * looped:7.1f} ms, ratio {looped / vectorized:5.1f}x)")


def cloud(points: int = 10_000) -> None:
    rng = np.random.default_rng(0)
    frames = rng.standard_normal((points, 3, 3))
    units = frames / np.linalg.norm(frames, axis=-1, keepdims=True)
    norms = rng.uniform(0, 1.5, (points, 3))
    vectors = units * norms[..., None]
    gram = np.einsum("nik,njk->nij", vectors, vectors)
    params = dict(c=rng.uniform(0.3, 3.0, points), gamma=10 ** rng.uniform(-2, 1, points),
                  d=rng.uniform(-0.5, 0.5, points))
    gram_entries = dict(theta=gram[:, 0, 0], alpha_K=gram[:, 0, 1], alpha_Q=gram[:, 0, 2],
                        omega_KK=gram[:, 1, 1], omega_QQ=gram[:, 2, 2], omega_KQ=gram[:, 1, 2])
    solve_attention(TANH, params["c"][:10], params["gamma"][:10], d=params["d"][:10],
                    gram={k: v[:10] for k, v in gram_entries.items()})
    start = time.perf_counter()
    result = solve_attention(TANH, params["c"], params["gamma"], d=params["d"], gram=gram_entries)
    vectorized = time.perf_counter() - start
    previous = os.environ.get("SYMRMT_THREADS")
    os.environ["SYMRMT_THREADS"] = "1"
    try:
        start = time.perf_counter()
        solve_attention(TANH, params["c"], params["gamma"], d=params["d"], gram=gram_entries)
        one_thread = time.perf_counter() - start
    finally:
        if previous is None:
            del os.environ["SYMRMT_THREADS"]
        else:
            os.environ["SYMRMT_THREADS"] = previous
    sample = 100
    start = time.perf_counter()
    for i in range(sample):
        solve_attention(TANH, params["c"][i], params["gamma"][i], d=params["d"][i],
                        gram={k: v[i] for k, v in gram_entries.items()})
    looped = (time.perf_counter() - start) / sample * points
    print(f"vectorized cloud: {points / vectorized:9.0f} points/s   (one thread: {points / one_thread:6.0f}; target >= 1e4; "
          f"one call per point: {points / looped:7.0f} points/s, ratio {looped / vectorized:5.1f}x; "
          f"max residual {result.residual.max():.1e})")


BUILD = """
import time; start = time.perf_counter()
from symrmt.nonlinearity import hermite
from symrmt.theory import attention_error
h = hermite("{f}")
attention_error(h, 1.0, 0.1)
print(time.perf_counter() - start)
"""
BARE = "import time; start = time.perf_counter(); import numpy, scipy, sympy; print(time.perf_counter() - start)"


def build(f: str = "tanh(2*x)/2 + sin(x)/3") -> None:
    with tempfile.TemporaryDirectory() as cache:                 # an empty disk cache: a really new f
        env = dict(os.environ, SYMRMT_CACHE_DIR=cache)

        def run(code: str) -> float:
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, env=env)
            return time.perf_counter() - start

        fresh = run(BUILD.format(f=f))
        again = run(BUILD.format(f=f))
        bare = run(BARE)
    print(f"first build for a new f ({f}), fresh process: {fresh:5.2f} s   (target < 10 s; "
          f"next run, from the disk cache: {again:4.2f} s; bare start-up with numpy/scipy/sympy: {bare:4.2f} s)")


def _random_grams(rng, rank: int, points: int) -> np.ndarray:
    vectors = rng.standard_normal((points, 1 + 2 * rank, 1 + 2 * rank))
    vectors *= rng.uniform(0, 1.5 / np.sqrt(1 + 2 * rank), (points, 1 + 2 * rank, 1))
    return np.einsum("nik,njk->nij", vectors, vectors)


def rank(points: int = 10_000) -> None:
    gamma = np.geomspace(1e-3, 1e2, 200)
    rng = np.random.default_rng(0)
    g3, g1 = _random_grams(rng, 3, 1)[0], _random_grams(rng, 1, 1)[0]
    attention_error(TANH, 1.0, gamma, gram=g3)                      # first build (not timed)
    curve3 = best_of(lambda: attention_error(TANH, 1.0, gamma, gram=g3))
    curve1 = best_of(lambda: attention_error(TANH, 1.0, gamma, gram=g1))
    c, g, d = rng.uniform(0.3, 3.0, points), 10 ** rng.uniform(-2, 1, points), rng.uniform(-0.5, 0.5, points)
    G3, G1 = _random_grams(rng, 3, points), _random_grams(rng, 1, points)
    start = time.perf_counter()
    attention_error(TANH, c, g, d=d, gram=G3)
    cloud3 = time.perf_counter() - start
    start = time.perf_counter()
    attention_error(TANH, c, g, d=d, gram=G1)
    cloud1 = time.perf_counter() - start
    print(f"rank 3: 200-point curve {1e3 * curve3:7.1f} ms (rank 1: {1e3 * curve1:6.1f} ms, ratio {curve3 / curve1:4.2f}x); "
          f"cloud {points / cloud3:7.0f} points/s (rank 1: {points / cloud1:7.0f}, ratio {cloud1 / cloud3:4.2f}x)")


def speedup() -> None:
    """The theory of a 100-point curve against the Monte Carlo of the same curve (one seed, n = 1024 and 2048)."""
    from symrmt.simulation import simulate

    gamma = np.geomspace(1e-2, 1e2, 100)
    geometry = Geometry(1.5, 1.0, 1.0, 1.0, 1.0, 1.0)
    attention_error(TANH, 1.0, gamma, geometry)                     # first build (not timed)
    theory = best_of(lambda: attention_error(TANH, 1.0, gamma, geometry))
    for n in (1024, 2048):
        seconds = best_of(lambda: simulate(np.tanh, n, 1.0, gamma, geometry, seeds=2, progress=False), repeat=2) / 2
        print(f"100-point curve: theory {1e3 * theory:6.1f} ms, Monte Carlo at n = {n} {seconds:6.2f} s per seed: "
              f"the theory is {seconds / theory:7.0f}x faster than one seed")


def density() -> None:
    from symrmt.theory.density import spectral_density

    gamma = np.geomspace(1e-3, 1e2, 200)
    reference = best_of(lambda: attention_error(TANH, 1.0, gamma), repeat=3)
    for matrix, x in (("gram", np.linspace(0.01, 6, 400)), ("kernel", np.linspace(-1.5, 2.5, 400))):
        for eta in (0.0, 0.05):
            spectral_density(TANH, 2.0, x[:5], eta=eta, matrix=matrix)             # build (not timed)
            seconds = best_of(lambda: spectral_density(TANH, 2.0, x, eta=eta, matrix=matrix), repeat=1)
            print(f"400-point {matrix} density, c = 2, eta = {eta}: {seconds:6.2f} s "
                  f"({seconds / reference:6.1f}x the 200-point error curve, {1e3 * reference:5.1f} ms)")


def refusal() -> None:
    from symrmt.errors import ConvergenceError

    attention_error(TANH, 1.0, 1e-4)                                 # first build (not timed)
    solvable = best_of(lambda: attention_error(TANH, 1.0, 1e-4), repeat=2)

    def refused(gamma: float) -> float:
        start = time.perf_counter()
        try:
            attention_error(TANH, 1.0, gamma)
        except ConvergenceError:
            return time.perf_counter() - start
        raise AssertionError(f"gamma = {gamma:g} was not refused")

    print(f"refusal at c = 1: gamma = 1e-12 (stalled) {refused(1e-12):6.2f} s, gamma = 1e-10 (too small for the "
          f"quadrature) {refused(1e-10):6.2f} s   (solving gamma = 1e-4: {solvable:6.2f} s; was 170 s for 1e-12)")


def _load() -> str:
    """The 1-minute load average and the CPUs it is shared by (timings on a loaded machine are slower)."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def _cloud_points(rng, points: int) -> dict:
    """A random rank-1 cloud: c, gamma, d and the six Gram entries of random (mu, w_K, w_Q)."""
    frames = rng.standard_normal((points, 3, 3))
    vectors = frames / np.linalg.norm(frames, axis=-1, keepdims=True) * rng.uniform(0, 1.5, (points, 3, 1))
    gram = np.einsum("nik,njk->nij", vectors, vectors)
    return dict(c=rng.uniform(0.3, 3.0, points), gamma=10 ** rng.uniform(-2, 1, points), d=rng.uniform(-0.5, 0.5, points),
                gram=dict(theta=gram[:, 0, 0], alpha_K=gram[:, 0, 1], alpha_Q=gram[:, 0, 2], omega_KK=gram[:, 1, 1],
                          omega_QQ=gram[:, 2, 2], omega_KQ=gram[:, 1, 2]))


#: The forms ``forms`` measures: the default one, the algebraic one everywhere, and the reference.
FORMS = ("auto", "algebraic", "quadrature")


def _per_form(values: dict, unit: str, scale: float = 1.0, digits: int = 1) -> str:
    """``auto X unit, algebraic Y unit, quadrature Z unit`` with each value times ``scale``."""
    return ", ".join(f"{form} {scale * values[form]:.{digits}f} {unit}" for form in FORMS)


def forms(points: int = 10_000) -> None:
    """``form="auto"`` (the default) and ``form="algebraic"`` against the quadrature form, in the same run.

    The curve and the cloud are timed twice: as NumPy code (``SYMRMT_JIT=never``: what a single call in a fresh
    process runs) and with the kernels compiled (``symrmt.runtime.jit``: what the default rule switches to once the
    NumPy code has cost a second in the process; here compiled before the timing, with its cost printed).
    """
    from symrmt.runtime import jit
    from symrmt.theory.density import spectral_density

    gamma = np.geomspace(1e-3, 1e2, 200)
    geometry = Geometry(1.5, 1.0, 1.0, 1.0, 1.0, 1.0)
    cloud = _cloud_points(np.random.default_rng(0), points)
    if not jit.installed():
        print("Numba is not installed (pip install 'symrmt[fast]'): NumPy code only")
    for rule in ("never", "always") if jit.installed() else ("never",):
        with jit.mode(rule):
            times, cpu = {}, {}
            start = time.perf_counter()
            for form in FORMS:
                attention_error(TANH, 1.0, gamma, geometry, form=form)          # first build (not timed)
            label = "NumPy code" if rule == "never" else \
                f"kernels compiled, in {time.perf_counter() - start:.2f} s with the first curve"
            for form in FORMS:
                times[form] = best_of(lambda: attention_error(TANH, 1.0, gamma, geometry, form=form))
                cpu[form] = best_of(lambda: attention_error(TANH, 1.0, gamma, geometry, form=form),
                                    clock=time.process_time)
            print(f"[{label}] 200-point curve: {_per_form(times, 'ms', 1e3)} ({times['quadrature'] / times['auto']:4.1f}x"
                  f" for auto; target < 10 ms; {_load()}); CPU time: {_per_form(cpu, 'ms', 1e3)}")
            for form in FORMS:
                solve_attention(TANH, cloud["c"][:10], cloud["gamma"][:10], d=cloud["d"][:10],
                                gram={k: v[:10] for k, v in cloud["gram"].items()}, form=form)
                times[form] = best_of(lambda: solve_attention(TANH, cloud["c"], cloud["gamma"], d=cloud["d"],
                                                              gram=cloud["gram"], form=form), repeat=3)
                cpu[form] = best_of(lambda: solve_attention(TANH, cloud["c"], cloud["gamma"], d=cloud["d"],
                                                            gram=cloud["gram"], form=form), repeat=2,
                                    clock=time.process_time)
            rates = {form: points / times[form] for form in FORMS}
            print(f"[{label}] rank-1 cloud of {points}: {_per_form(rates, 'points/s', digits=0)} "
                  f"({times['quadrature'] / times['auto']:4.1f}x for auto; target >= 1e5; {_load()}); per CPU "
                  f"second (all threads): {_per_form({form: points / cpu[form] for form in FORMS}, '', digits=0)}")
    times = {}
    for matrix, x in (("gram", np.linspace(0.01, 6, 400)), ("kernel", np.linspace(-1.5, 2.5, 400))):
        for form in FORMS:
            spectral_density(TANH, 2.0, x[:5], matrix=matrix, form=form)            # build (not timed)
            times[form] = best_of(lambda: spectral_density(TANH, 2.0, x, matrix=matrix, form=form), repeat=2)
        print(f"400-point {matrix} density at eta = 0: {_per_form(times, 's', digits=3)} "
              f"({times['quadrature'] / times['auto']:5.1f}x for auto; target < 0.2 s; {_load()})")
    for form in FORMS:
        with tempfile.TemporaryDirectory() as cache:            # each form with an empty disk cache: a new f
            env = dict(os.environ, SYMRMT_CACHE_DIR=cache)
            code = BUILD.replace("attention_error(h, 1.0, 0.1)", f"attention_error(h, 1.0, 0.1, form={form!r})")
            start, children = time.perf_counter(), _children_cpu()
            subprocess.run([sys.executable, "-c", code.format(f="tanh(2*x)/2 + sin(x)/3")], check=True,
                           capture_output=True, env=env)
            times[form], cpu[form] = time.perf_counter() - start, _children_cpu() - children
    print(f"first build for a new f, fresh process: {_per_form(times, 's', digits=2)} (target < 10 s; {_load()}); "
          f"CPU time: {_per_form(cpu, 's', digits=2)}")


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    chosen = sys.argv[1:] or ["curve", "cloud", "build", "rank", "speedup", "density", "refusal", "forms"]
    for name in chosen:
        {"curve": curve, "cloud": cloud, "build": build, "rank": rank, "speedup": speedup, "density": density,
         "refusal": refusal, "forms": forms}[name]()
