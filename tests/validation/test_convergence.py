"""Theory against the Monte Carlo carried to n = infinity: extrapolated limits, with power.

For each setting, ``symrmt.converge`` simulates the ladder NS (seeds per size weighted to the
top rungs, which set the width of the interval) and the limits of E_attn, E_lin and their paired gap are
extrapolated with a 99% interval (``symrmt.analysis.finite_size.extrapolate``: weighted fit, model
and window chosen by the data, bootstrap that redoes every choice). The test passes when
the theory lies inside every interval. The tolerance is the interval itself, nothing
hand-set: it comes from the seeds at each size and from how well the ladder determines the
limit. The level is 99% because a setting makes 6 comparisons (3 quantities, 2 gammas) and
the 9 settings together 54: at 95% two or three false alarms would be expected (the intervals
cover at 95% to 99% on synthetic ladders, tests/test_convergence.py). The seeds are fixed,
so the test is deterministic; the level says how unlikely a false alarm was.

Power: the same comparisons against an attention theory off by 2% (E_attn multiplied by 1.02,
hence the gap theory shifted by 0.02 E_attn) must fail on more than half of the settings; the test
prints which comparison caught each. The gap carries the power: at c < 1, E_attn and E_lin are
computed on the same draws and fluctuate together, so the standard error of their difference is
several times smaller than that of either.

The settings cover the regimes of docs/validation.md ("Finite size"): noise, signal without
weights, aligned weights at c = 0.25, 1 and 2, a kink (ReLU), rank 2, d != 0 and a_1 = 0 with a
moderate signal. Where the regime allows, the norms sit where the correction is short (weights of
norm 1/2 at c = 0.25, where the gap is most precise), so that the extrapolation is short too. Three settings check the theory but
are not expected to catch 2%: c = 1 and c = 2 (the gap is no more precise than E_attn there, and a
seed costs more) and a_1 = 0 (the signal enters at order n^-1/2: still -1% at n = 2048). The
regimes that converge more slowly still (a_1 = 0 with a strong signal, weights of norm 2 at
c = 0.25) are measured in that section instead: no ladder that a test can afford reaches their limit.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from symrmt import Geometry, converge, hermite
from symrmt.analysis.convergence import Convergence
from symrmt.analysis.finite_size import extrapolate

pytestmark = pytest.mark.slow

# The small sizes are cheap and pin the shape of the correction: with them the fit tells n^-1 from n^-1/2.
NS = (64, 128, 256, 512, 1024, 2048)
# Seeds per size. A seed costs ~0.002, 0.02, 0.06, 0.2, 0.3 and 1 s at n = 64 ... 2048 (load 10), not
# ~n^2: overheads dominate small n. The interval's width is set by the top rungs (se ~ 1/sqrt(n seeds),
# and the t quantile with few seeds), so they get the seeds: 32 at 2048 narrowed the gap's 99% interval
# by ~25% against the earlier 8 at the same total cost (2000 seeds at n = 128 bought almost nothing).
SEEDS = (2000, 250, 128, 128, 64, 32)
# c = 2 costs several times more per seed and its gap is no more precise than E_attn (c >= 1): a theory check only.
SEEDS_COSTLY = (2000, 250, 128, 64, 32, 8)
# The paired gap is most precise relative to 0.02 E_attn at gamma = 0.3 to 1 (99% half-width 0.25 to
# 0.8 times 0.02 E_attn at c < 1); at 0.1 and below it is 1.2 to 3 times wider.
GAMMA = (0.3, 1.0)
LEVEL = 0.99
PLANTED = 1.02                      # the attention theory off by 2%

ALIGNED = Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
# Weights of norm 1/2 along mu: at c = 0.25 the weights of norm 1 shift theta' = theta + alpha_K alpha_Q from 1
# to 2, and the correction with it (-2.5% at n = 512 against -0.9%); 1/2 keeps it short enough to extrapolate.
ALIGNED_HALF = Geometry(1.0, 0.5, 0.5, 1.0, 1.0, 1.0)
# Rank 2, the Gram matrix of (mu, w_K1, w_K2, w_Q1, w_Q2) with w_K1 = w_Q1 = w_K2 = mu/2 and w_Q2 = e/2, e a unit
# vector orthogonal to mu: W_K^T W_Q = (mu mu^T + mu e^T)/4 is truly rank 2 (with w_K2 = w_Q2 = e/2 the second
# direction drops out of the theory, whose numbers then equal those of rank 1). Norms 1/2 as ALIGNED_HALF.
RANK2 = np.array([[1, .5, .5, .5, 0], [.5, .25, .25, .25, 0], [.5, .25, .25, .25, 0], [.5, .25, .25, .25, 0],
                  [0, 0, 0, 0, .25]])

# name: (f, c, keyword arguments of converge, seeds per size). Most settings have c < 1, where E_attn and
# E_lin share the part of y outside the span of X's rows and the paired gap is several times more precise
# than either error: that is where a 2% error of the attention theory is visible at an affordable n. At
# c = 1 and 2 it is not (the half-width stays near 0.02 E_attn at any affordable seed count): those
# settings check the theory, and are not expected to catch the planted error.
SETTINGS = {
    "noise, c=0.25": ("tanh(x)", 0.25, {}, SEEDS),
    "signal without weights, c=0.25": ("tanh(x)", 0.25, {"geometry": Geometry(mu_norm=1.0)}, SEEDS),
    "aligned |w|=1/2, c=0.25": ("tanh(x)", 0.25, {"geometry": ALIGNED_HALF}, SEEDS),
    "aligned, c=1": ("tanh(x)", 1.0, {"geometry": ALIGNED}, SEEDS),
    "aligned, c=2": ("tanh(x)", 2.0, {"geometry": ALIGNED}, SEEDS_COSTLY),
    # At c = 0.5 (norms 1) the gap's half-width was 0.7 to 0.9 times the planted shift and missed it.
    "kink: centered ReLU, aligned |w|=1/2, c=0.25": ("relu(x)", 0.25, {"geometry": ALIGNED_HALF}, SEEDS),
    "rank 2, c=0.25": ("tanh(x)", 0.25, {"gram": RANK2}, SEEDS),
    "d = 0.5, aligned |w|=1/2, c=0.25": ("tanh(x)", 0.25, {"geometry": ALIGNED_HALF, "d": 0.5}, SEEDS),
    "a1 = 0, moderate signal, c=0.5": ("(x**3 - 3*x)/sqrt(6)", 0.5, {"geometry": Geometry(mu_norm=1.0)}, SEEDS),
}


@lru_cache(maxsize=None)
def ladder(name: str) -> Convergence:
    """The ladder of one setting (cached: the theory test and the power test share the draws)."""
    f, c, kwargs, seeds = SETTINGS[name]
    return converge(hermite(f, center=True), c, GAMMA, ns=NS, seeds=seeds, seed=17, progress=False, **kwargs)


def misses(result: Convergence, attention: np.ndarray, linear: np.ndarray) -> list[str]:
    """The comparisons whose theory lies outside the 99% interval of the extrapolated limit."""
    found = []
    for fit, theory in ((result.attention, attention), (result.linear, linear), (result.gap, attention - linear)):
        for g, gamma in enumerate(result.gamma):
            limit = extrapolate(result.ns, fit.mean[:, g], fit.se[:, g], result.seeds, level=LEVEL,
                                rng=np.random.default_rng(g))
            if not limit.lo <= theory[g] <= limit.hi:
                found.append(f"{fit.name} at gamma = {gamma:g}: theory {theory[g]:.5f} outside "
                             f"[{limit.lo:.5f}, {limit.hi:.5f}] (limit {limit.limit:.5f}, {limit.model})")
    return found


@pytest.mark.parametrize("name", list(SETTINGS))
def test_extrapolated_limits_hold_the_theory(name):
    result = ladder(name)
    assert not misses(result, result.attention.theory, result.linear.theory)


def test_an_attention_theory_off_by_two_percent_is_caught():
    found = {name: misses(ladder(name), PLANTED * ladder(name).attention.theory, ladder(name).linear.theory)
             for name in SETTINGS}
    caught = [name for name in SETTINGS if found[name]]
    for name in SETTINGS:
        print(f"{'caught' if found[name] else 'missed'}: {name}: {'; '.join(found[name]) or '-'}")
    print(f"planted 2% error caught on {len(caught)} of {len(SETTINGS)} settings")
    assert len(caught) > len(SETTINGS) / 2, caught      # caught: the six settings at c = 0.25
