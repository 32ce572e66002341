"""Tests of symrmt.simulation.memory: the peak estimate and the refusal before anything is allocated."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.simulation import api, memory, setup, memory_estimate, simulate, simulate_spectrum
from symrmt.simulation.routes import Plan


def test_many_gammas_count_in_the_memory_estimate():
    assert memory_estimate(2048, 2048, 2, 10**7, "exact") > 100 * 2**30


@pytest.mark.parametrize("n, c", [(10**9, 1.0), (1000, 1e6)])    # c at the top of validate.C_RANGE
def test_huge_sizes_are_refused_before_allocating(n, c, monkeypatch):
    """Refused before f is compiled or anything is drawn (how fast: benchmarks/bench_memory.py --refusal)."""
    def never(*args, **kwargs):
        raise AssertionError("reached past the memory check")

    monkeypatch.setattr(api, "draw", never)
    monkeypatch.setattr(setup, "draw", never)
    monkeypatch.setattr(setup, "with_f", never)
    with pytest.raises(ParameterError, match=r"GiB.*available"):
        simulate("tanh(x)", n, c, [0.1], seeds=2)


def test_memory_refusal_names_the_figures(monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 100 * 2**20)
    with pytest.raises(ParameterError, match=r"n = 3000, p = 3000.*GiB.*0\.0977 GiB"):
        simulate(np.tanh, 3000, 1.0, [0.1], seeds=2)
    with pytest.raises(ParameterError, match=r"simulate_spectrum\(matrix='kernel'\) needs"):
        simulate_spectrum(np.tanh, 3000, 1.0, "kernel")


def test_memory_estimate_at_16384_is_under_8_gib():
    """The fast routes keep at most three n-by-n arrays; exact needs the eigh workspace on top."""
    auto = memory_estimate(16384, 16384, seeds=4, gammas=100, method="auto")
    assert 6 * 2**30 < auto < 8 * 2**30
    assert memory_estimate(16384, 16384, 4, 100, "exact") > auto


def test_the_estimate_counts_the_plans_lanczos_bases():
    """Two Lanczos bases of the plan's larger budget (one per thread), of at most n + 1 vectors each."""
    n = 4096
    plan = Plan.of("auto", n, n)
    tridiagonal = memory_estimate(n, n, 1, 100, "tridiagonal")
    assert memory_estimate(n, n, 1, 100, "auto") - tridiagonal == pytest.approx(
        1.05 * 2 * 8.0 * n * (plan.lanczos_steps + 1), abs=1)
    assert Plan.of("lanczos", n, n).lanczos_steps == 4000          # LANCZOS_MAX_STEPS < n + 1
    assert memory_estimate(n, n, 1, 100, "lanczos") - tridiagonal == pytest.approx(
        1.05 * 2 * 8.0 * n * (4000 + 1), abs=1)


def test_available_memory_is_a_positive_byte_count_here():
    available = memory.available_memory()
    assert available is None or available > 2**20
