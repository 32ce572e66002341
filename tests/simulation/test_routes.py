"""Tests of symrmt.simulation.routes: every method agrees with "exact", and the plan is made once."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.errors import ConvergenceError
from symrmt.simulation import routes, simulate, simulate_once
from symrmt.simulation.linalg import LANCZOS_RTOL
from symrmt.simulation.routes import Plan, unit_interval

from .reference import ASYMMETRIC, RANK2

SMALL_GAMMAS = np.geomspace(1e-4, 1e2, 25)


@pytest.mark.parametrize("method", ["tridiagonal", "lanczos", "auto"])
@pytest.mark.parametrize("c", [0.3, 0.5, 1.0, 2.0])   # 0.3: Lanczos through X (no n-by-n X^T X kept)
@pytest.mark.parametrize("weights", ["asymmetric", "rank2"])
def test_fast_methods_agree_with_exact(method, c, weights):
    """The contract of method != 'exact': 1e-6 relative on every gamma, here down to gamma = 1e-4.

    The routes are exact up to rounding (tridiagonal) or up to a certified bracket of half-width
    LANCZOS_RTOL / 2 = 5e-7 (Lanczos); 1e-6 is the promise.
    """
    kwargs = dict(geometry=ASYMMETRIC) if weights == "asymmetric" else dict(geometry=None, gram=RANK2)
    geometry = kwargs.pop("geometry")
    reference = simulate_once(np.tanh, 120, c, SMALL_GAMMAS, geometry, 0.3, np.random.default_rng(2),
                              method="exact", **kwargs)
    got = simulate_once(np.tanh, 120, c, SMALL_GAMMAS, geometry, 0.3, np.random.default_rng(2),
                        method=method, **kwargs)
    for e_got, e_ref in zip(got, reference):
        np.testing.assert_allclose(e_got, e_ref, rtol=1e-6, atol=0)


def test_auto_takes_lanczos_when_it_is_cheaper():
    """At n = 400 and gamma >= 1 the cost model prefers Lanczos; it still agrees with exact."""
    gammas = np.geomspace(1.0, 100, 30)
    auto = simulate(np.tanh, 400, 1.0, gammas, ASYMMETRIC, seeds=2, method="auto")
    exact = simulate(np.tanh, 400, 1.0, gammas, ASYMMETRIC, seeds=2, method="exact")
    assert auto.routes["attention"] == {"lanczos": 2} and auto.routes["linear"] == {"lanczos": 2}
    assert exact.routes["attention"] == {"exact": 2}
    np.testing.assert_allclose(auto.attention_per_seed, exact.attention_per_seed, rtol=1e-6)
    np.testing.assert_allclose(auto.linear_per_seed, exact.linear_per_seed, rtol=1e-6)


@pytest.mark.parametrize("c", [0.3, 1.0])
def test_lanczos_route_itself_agrees_with_exact(c, monkeypatch):
    """Lanczos alone (no fallback allowed) at gamma >= 0.05, where it closes its bracket well before n steps: within
    the certified half-width LANCZOS_RTOL / 2 (plus rounding, 1e-3 of it)."""
    def no_fallback(*args, **kwargs):
        raise AssertionError("the tridiagonal fallback was taken")

    gammas = np.geomspace(0.05, 100, 20)
    reference = simulate_once(np.tanh, 300, c, gammas, ASYMMETRIC, 0.3, np.random.default_rng(3), method="exact")
    monkeypatch.setattr(routes, "_tridiagonal", no_fallback)
    got = simulate_once(np.tanh, 300, c, gammas, ASYMMETRIC, 0.3, np.random.default_rng(3), method="lanczos")
    for e_got, e_ref in zip(got, reference):
        np.testing.assert_allclose(e_got, e_ref, rtol=LANCZOS_RTOL / 2 * (1 + 1e-3))


def test_the_lanczos_budget_is_computed_once_per_call(monkeypatch):
    """One step budget per curve for a whole call (memory check and every seed), not one per seed."""
    calls = []
    budget = routes.step_budget
    monkeypatch.setattr(routes, "step_budget", lambda *args: calls.append(args) or budget(*args))
    simulate(np.tanh, 64, 1.0, [1.0, 10.0], seeds=3, method="auto", progress=False)
    assert len(calls) == 2     # attention and linear


@pytest.mark.parametrize("method, keeps, steps", [
    ("exact", False, (0, 0)), ("tridiagonal", True, (0, 0)), ("lanczos", True, (101, 101))])
def test_plans(method, keeps, steps):
    plan = Plan.of(method, 100, 100)
    assert plan.keeps_gram is keeps and (plan.attention_steps, plan.linear_steps) == steps
    auto = Plan.of("auto", 2048, 2048)
    assert auto.attention_steps == routes.step_budget(2048, 2048, True, True) and auto.lanczos_steps > 0
    assert not Plan.of("tridiagonal", 100, 99).keeps_gram and Plan.of("auto", 100, 50).keeps_gram


def test_clipping_only_of_round_off():
    grid = np.array([1.0, 2.0, 3.0])
    clipped = unit_interval(np.array([-1e-13, 0.5, 1 + 1e-13]), "attention", grid)
    np.testing.assert_array_equal(clipped, [0.0, 0.5, 1.0])
    with pytest.raises(ConvergenceError, match=r"attention error .* gamma = 3"):
        unit_interval(np.array([0.1, 0.5, 1 + 1e-9]), "attention", grid)
    with pytest.raises(ConvergenceError, match="outside"):
        unit_interval(np.array([0.1, np.nan, 0.5]), "linear", grid)


@pytest.mark.parametrize("n, p", [(256, 256), (1024, 512), (2048, 4096), (4096, 1024)])
@pytest.mark.parametrize("attention", [True, False])
@pytest.mark.parametrize("keeps_gram", [True, False])
def test_step_budget_is_the_most_steps_cheaper_than_tridiagonal(n, p, attention, keeps_gram):
    steps = routes.step_budget(n, p, attention, keeps_gram)
    limit = routes.tridiagonal_cost(n, p, attention)
    assert steps > 0
    assert routes.lanczos_cost(steps, n, p, attention, keeps_gram) <= limit
    assert routes.lanczos_cost(steps + 1, n, p, attention, keeps_gram) > limit


def test_prior_steps_grow_as_gamma_shrinks_and_at_the_hard_edge():
    """sqrt(kappa) of the Marchenko-Pastur bulk: more steps for smaller gamma, most at c = 1."""
    assert routes.prior_steps(1000, 1000, 1e-3, False) > routes.prior_steps(1000, 1000, 1e-1, False)
    assert routes.prior_steps(1000, 1000, 1e-3, False) > routes.prior_steps(1000, 4000, 1e-3, False)
    assert routes.prior_steps(1000, 1000, 1e-3, True) > routes.prior_steps(1000, 1000, 1e-3, False)
