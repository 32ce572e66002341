"""Unit tests of symrmt.simulation.threads: the BLAS limits, the pair runner, the measured choice,
and that every strategy gives the same errors as the others."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from symrmt.geometry import Geometry
from symrmt.simulation import simulate, threads

threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_counts():
    return [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]


def test_blas_threads_stack_and_restore():
    before = blas_counts()
    with threads.blas_threads(1):
        assert set(blas_counts()) == {1}
        with threads.blas_threads(2):
            assert set(blas_counts()) == {2}
        assert set(blas_counts()) == {1}      # the inner use gave back the outer limit
    assert blas_counts() == before


def test_run_pair_returns_in_order_and_runs_concurrently_only_when_asked():
    seen = []

    def who(tag):
        seen.append(threading.current_thread() is threading.main_thread())
        return tag

    assert threads.run_pair(lambda: who("a"), lambda: who("b"), threads.Strategy("serial", False, 1)) == ("a", "b")
    assert seen == [True, True]
    seen.clear()
    assert threads.run_pair(lambda: who("a"), lambda: who("b"), threads.Strategy("pair", True, 1)) == ("a", "b")
    assert sorted(seen) == [False, True]      # one of the two ran in a worker thread


def test_measure_times_every_strategy_and_the_policy_keeps_the_fastest(monkeypatch):
    seconds = threads.measure(size=64, threads=2)
    assert {("sytrd", "pair"), ("sytrd", "serial"), ("products", "serial"), ("gemm", "serial")} <= set(seconds)
    assert ("products", "pair") not in seconds   # the two Lanczos runs are one run of paired steps
    assert ("gemm", "threaded") in seconds     # always timed on both counts: no probe decides for it
    assert all(t > 0 for t in seconds.values())
    planted = {("sytrd", "pair"): 3.0, ("sytrd", "serial"): 2.0, ("sytrd", "threaded"): 1.0,
               ("products", "serial"): 2.0, ("products", "threaded"): 3.0}
    assert threads._fastest(planted, "sytrd", 2) == threads.Strategy("threaded", False, 2)
    assert threads._fastest(planted, "products", 2) == threads.Strategy("serial", False, 1)
    assert set(k for k, s in threads.measure(size=64, threads=1)) == {"sytrd", "products", "gemm"}
    assert ("sytrd", "threaded") not in threads.measure(size=64, threads=1)  # no second count to try


def test_small_reductions_are_not_measured_and_the_environment_forces_a_strategy(monkeypatch):
    monkeypatch.delenv("SYMRMT_REDUCTIONS", raising=False)
    monkeypatch.setattr(threads, "_measured_policy", lambda: pytest.fail("measured for a small size"))
    small = threads.policy(threads.MEASURED_FROM - 1)
    assert small.reductions.name == "pair" and small.products == threads.available_threads()
    monkeypatch.setenv("SYMRMT_REDUCTIONS", "serial")
    assert threads.policy(10**6).reductions == threads.Strategy("serial", False, 1)


@pytest.mark.parametrize("method", ["tridiagonal", "lanczos"])
def test_every_strategy_gives_the_same_errors(monkeypatch, method):
    """Thread counts only reorder floating-point operations: the routes agree to rounding."""
    geometry = Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    runs = {}
    for name in threads.STRATEGIES:
        monkeypatch.setenv("SYMRMT_REDUCTIONS", name)
        runs[name] = simulate(np.tanh, 160, 1.0, [0.01, 0.1, 1.0], geometry, seeds=2, method=method,
                              progress=False)
    for name in ("serial", "threaded"):
        np.testing.assert_allclose(runs[name].attention_per_seed, runs["pair"].attention_per_seed, rtol=1e-9)
        np.testing.assert_allclose(runs[name].linear_per_seed, runs["pair"].linear_per_seed, rtol=1e-9)


def test_large_draws_choose_their_products_threads_from_a_gemm_of_their_scale(monkeypatch):
    """A GEMM of CALIBRATION_SIZE is dominated by its threads' start-up; from PRODUCTS_SIZE on the products' threads
    come from a GEMM of PRODUCTS_SIZE (planted timings: the small GEMM says one thread, the large one two)."""
    monkeypatch.delenv("SYMRMT_REDUCTIONS", raising=False)
    pair = threads.Strategy("pair", True, 1)
    small = threads.ThreadPolicy(pair, pair, 1, {("gemm", "serial"): 0.012, ("gemm", "threaded"): 0.014})
    monkeypatch.setattr(threads, "_measured_policy", lambda: small)
    monkeypatch.setattr(threads, "_large_products", lambda: (2, {("gemm at PRODUCTS_SIZE", "serial"): 0.09,
                                                                ("gemm at PRODUCTS_SIZE", "threaded"): 0.045}))
    assert threads.policy(threads.PRODUCTS_SIZE - 1).products == 1
    large = threads.policy(threads.PRODUCTS_SIZE)
    assert large.products == 2 and large.reductions == pair and ("gemm at PRODUCTS_SIZE", "threaded") in large.seconds
