"""Theory against the Monte Carlo of the real attention model (not of the Gaussian surrogate).

How the tolerance is set. For one setting and one gamma, the Monte Carlo mean over
``SEEDS`` independent draws has a standard error ``se`` estimated from the draws;
the per-draw spread of E is O(1/sqrt(n)) (a quadratic form in y), about 0.01 at
n = 2048. The gap allowed between theory and simulation is

    tol = t_{0.995}(SEEDS - 1) * se  +  BIAS / n,

the first term a two-sided 99% Student-t band for the mean (few seeds: the t
quantile, not the normal one, accounts for the noise in ``se`` itself), the second
an allowance for the finite-n bias of the deterministic equivalent, which is
O(1/n). BIAS = 20 comes from a strongly aligned case measured for this package (why the
gap grows with mu^T M mu: docs/theory.md section 3;
mu^T M mu ~ 11: gap * n = 16, 21, 22 at n = 600, 1200, 2400) and is an upper
bound for the moderate norms used here; it is 0.01 at n = 2048. The seeds are
fixed, so the test is deterministic; the band says how unlikely a false alarm is.

That the bias really is a finite-size effect, and not a wrong theory, is shown by
``test_gap_shrinks_as_n_doubles``: in a strongly aligned case the gap falls as n
goes from 512 to 4096.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from scipy import stats

from symrmt.geometry import Geometry
from symrmt.nonlinearity import hermite
from symrmt.simulation import simulate
from symrmt.theory import attention_error, linear_error

pytestmark = pytest.mark.slow

N = 2048
SEEDS = 4
BIAS = 20.0
GAMMA = np.array([0.05, 0.3, 2.0])

# name: (f, c, geometry, d). Together they cover every case of issue 3 and, for linear
# regression, the grid c in {0.5, 1, 2} x |mu| in {0, 1, 2} of issue 2.
SETTINGS = {
    "noise, c=1": ("tanh(x)", 1.0, Geometry(), 0.0),
    "noise, c=0.5 (c<1)": ("tanh(x)", 0.5, Geometry(), 0.0),
    "noise, c=2 (c>1)": ("erf(x)", 2.0, Geometry(), 0.0),
    "signal, no weights, c=2": ("tanh(x)", 2.0, Geometry(mu_norm=1.0), 0.0),
    "weights aligned with mu": ("tanh(x)", 1.0, Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0), 0.0),
    "weights orthogonal to mu, c=0.5": ("tanh(x)", 0.5, Geometry(1.0, 1.2, 1.2, 0.0, 0.0, 1.0), 0.0),
    "a1 = 0, aligned, |mu|=2": ("cos(x) - exp(-1/2)", 1.0, Geometry(2.0, 1.0, 1.0, 1.0, 1.0, 1.0), 0.0),
    "f = x, mixed, |mu|=2, c=2": ("x", 2.0, Geometry(2.0, 0.6, 0.5, 0.5, 0.2, 0.3), 0.0),
    "relu, d != 0, |mu|=2, c=0.5": ("Max(x, 0) - 1/sqrt(2*pi)", 0.5, Geometry(2.0, 0.5, 0.5, 0.7, 0.7, 1.0), 0.5),
    "asymmetric w_K != w_Q, c=1.5": ("erf(x)", 1.5, Geometry(1.0, 1.2, 0.8, 0.6, -0.3, 0.2), 0.0),
    "d < 0, asymmetric, |mu|=1.5": ("tanh(x)", 1.0, Geometry(1.5, 1.0, 0.6, 0.8, 0.3, 0.5), -0.4),
}


@lru_cache(maxsize=None)
def run(name: str, n: int = N, seeds: int = SEEDS, gamma: tuple = tuple(GAMMA)):
    """Monte Carlo (cached: the linear and attention checks share the draws)."""
    f, c, geometry, d = SETTINGS[name] if name in SETTINGS else STRONG[name]
    return simulate(f, n=n, c=c, gamma=np.array(gamma), geometry=geometry, d=d, seeds=seeds, seed=0)


def tolerance(se: np.ndarray, seeds: int, n: int) -> np.ndarray:
    """Two-sided 99% Student-t band of the mean plus the O(1/n) bias allowance (module docstring)."""
    return stats.t.ppf(0.995, seeds - 1) * se + BIAS / n


@pytest.mark.parametrize("name", list(SETTINGS))
def test_attention_theory_matches_monte_carlo(name):
    f, c, geometry, d = SETTINGS[name]
    theory = attention_error(hermite(f), c, GAMMA, geometry, d)
    mc = run(name)
    gap = np.abs(theory - mc.attention_mean)
    assert np.all(gap <= tolerance(mc.attention_se, SEEDS, N)), (name, theory, mc.attention_mean, mc.attention_se)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_linear_theory_matches_monte_carlo(name):
    _, c, geometry, _ = SETTINGS[name]
    theory = linear_error(c, GAMMA, geometry)
    mc = run(name)
    gap = np.abs(theory - mc.linear_mean)
    assert np.all(gap <= tolerance(mc.linear_se, SEEDS, N)), (name, theory, mc.linear_mean, mc.linear_se)


# A strongly aligned case (mu^T M mu = 1.5^2 + 3^2 = 11.25, as in docs/theory.md section 3), where the
# finite-n gap is several times the statistical error at small n.
STRONG = {"strongly aligned": ("tanh(x)", 1.0, Geometry(1.5, 2.0, 2.0, 1.0, 1.0, 1.0), 0.0)}
CONVERGENCE_N = (512, 1024, 2048, 4096)
CONVERGENCE_SEEDS = {512: 16, 1024: 8, 2048: 4, 4096: 2}   # about the same standard error at every n


def test_gap_shrinks_as_n_doubles():
    f, c, geometry, d = STRONG["strongly aligned"]
    gamma = np.array([0.1])
    theory = attention_error(hermite(f), c, gamma, geometry, d)[0]
    gaps, ses = [], []
    for n in CONVERGENCE_N:
        mc = simulate(f, n=n, c=c, gamma=gamma, geometry=geometry, d=d, seeds=CONVERGENCE_SEEDS[n], seed=1)
        gaps.append(theory - mc.attention_mean[0])
        ses.append(mc.attention_se[0])
    gaps, ses = np.array(gaps), np.array(ses)
    print("n:", CONVERGENCE_N, "gap:", np.round(gaps, 4), "se:", np.round(ses, 4))
    # The gap at n = 512 is a real finite-size effect (several se away from 0) ...
    assert gaps[0] > 3 * ses[0]
    # ... it shrinks by at least a factor 2 from n = 512 to n = 4096 (O(1/n) predicts 8), beyond the noise,
    assert abs(gaps[-1]) < gaps[0] / 2 - 2 * np.hypot(ses[0], ses[-1]) / 2
    # ... and at n = 4096 it is within the statistical band plus the O(1/n) allowance.
    assert abs(gaps[-1]) <= tolerance(ses[-1], CONVERGENCE_SEEDS[4096], 4096)
