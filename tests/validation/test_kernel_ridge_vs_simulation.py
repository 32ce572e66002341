"""Kernel ridge regression on K alone: the derived theory against its own Monte Carlo.

The second model of docs/architecture.md, E_kernel(gamma) = (gamma^2/n) y^T (K^T K + gamma)^{-2} y,
with K drawn exactly as for attention (:func:`symrmt.simulation.simulate_kernel_ridge`).

How the tolerance is set, as in ``test_theory_vs_simulation.py``: the gap allowed between
theory and the mean over SEEDS draws is

    tol = t_{0.995}(SEEDS - 1) * se  +  BIAS / n,

a two-sided 99% Student-t band of the mean (few seeds: the t quantile accounts for the noise
in ``se`` itself) plus an allowance for the O(1/n) bias of the deterministic equivalent.
BIAS = 20, the attention's constant, also bounds this model: in the worst case below
(a_1 = 0, |mu| = 2, aligned weights, where the theory sees no signal and the finite model
a little) gap * n measured 10, 12, 7 at gamma = 0.1, 13, 19, 17 at gamma = 1 and 3, 5, 5 at
gamma = 10 for n = 400, 800, 1600 (32, 12, 4 seeds): gap * n does not grow with n, i.e. an O(1/n)
finite-size effect, not a wrong theory.

The power of the test is shown by planting errors that it must catch: the attention theory (a
different model with the same parameters), this model's theory with the signal dropped, and a
Wigner part of twice or half its variance where K is nothing else (a_1 = 0).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from symrmt.geometry import Geometry
from symrmt.nonlinearity import hermite
from symrmt.simulation import simulate_kernel_ridge
from symrmt.analysis.seeds import t_quantile
from symrmt.theory import attention_error, kernel_ridge_error

pytestmark = pytest.mark.slow

N = 1024
SEEDS = 6
BIAS = 20.0
GAMMA = np.array([0.05, 0.3, 2.0])

_V = np.array([[1.0, 0.0, 0.0, 0.0, 0.0],        # mu
               [0.7, 0.5, 0.0, 0.0, 0.0],        # w_K^(1): partly along mu
               [0.0, 0.2, 0.6, 0.0, 0.0],        # w_K^(2)
               [0.4, 0.3, 0.6, 0.0, 0.0],        # w_Q^(1)
               [-0.3, 0.0, 0.2, 0.5, 0.0]])      # w_Q^(2)

# name: (f, c, geometry or rank-r Gram matrix, d)
SETTINGS = {
    "noise, c=1": ("tanh(x)", 1.0, Geometry(), 0.0),
    "noise, c=0.5, erf": ("erf(x)", 0.5, Geometry(), 0.0),
    "signal, no weights, c=2": ("tanh(x)", 2.0, Geometry(mu_norm=1.0), 0.0),
    "weights aligned with mu": ("tanh(x)", 1.0, Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0), 0.0),
    "f = x, mixed, c=0.5": ("x", 0.5, Geometry(1.5, 0.6, 0.5, 0.5, 0.2, 0.3), 0.0),
    "relu, d=0.5, asymmetric, c=1.5": ("Max(x, 0) - 1/sqrt(2*pi)", 1.5, Geometry(1.5, 1.0, 0.6, 0.8, 0.3, 0.5), 0.5),
    "a1 = 0, aligned, |mu|=2": ("cos(x) - exp(-1/2)", 1.0, Geometry(2.0, 1.0, 1.0, 1.0, 1.0, 1.0), 0.0),
    "rank 2, c=1.3, d=0.3": ("tanh(x)", 1.3, _V @ _V.T, 0.3),
}


def _geometry(value):
    return (value, None) if isinstance(value, Geometry) else (None, value)


@lru_cache(maxsize=None)
def run(name: str):
    """Monte Carlo (cached: the planted-error checks reuse the draws)."""
    f, c, value, d = SETTINGS[name]
    geometry, gram = _geometry(value)
    return simulate_kernel_ridge(f, N, c, GAMMA, geometry, d, seeds=SEEDS, seed=0, gram=gram, progress=False)


def theory(name: str, error=kernel_ridge_error, wigner: float = 1.0, no_signal: bool = False) -> np.ndarray:
    """The theory of setting ``name``; ``wigner`` scales b^2 = nu - a_1^2, ``no_signal`` drops the geometry."""
    f, c, value, d = SETTINGS[name]
    geometry, gram = (Geometry(), None) if no_signal else _geometry(value)
    h = hermite(f)
    return error((h.a1, h.a1**2 + wigner * (h.nu - h.a1**2)), c, GAMMA, geometry, d, gram=gram)


def tolerance(se: np.ndarray) -> np.ndarray:
    """Two-sided 99% Student-t band of the mean plus the O(1/n) bias allowance (module docstring)."""
    return t_quantile(SEEDS, 0.99) * se + BIAS / N


@pytest.mark.parametrize("name", list(SETTINGS))
def test_kernel_ridge_theory_matches_monte_carlo(name):
    mc = run(name)
    gap = np.abs(theory(name) - mc.mean)
    print(name, "gap:", np.round(gap, 4), "tolerance:", np.round(tolerance(mc.se), 4))
    assert np.all(gap <= tolerance(mc.se)), (name, theory(name), mc.mean, mc.se)


SIGNAL = [name for name in SETTINGS if not name.startswith(("noise", "a1 = 0"))]


@pytest.mark.parametrize("planted, settings", [
    ("attention theory", SIGNAL),                 # another model with the same parameters
    ("signal dropped", SIGNAL),                   # the Woodbury correction left out
    ("Wigner variance doubled", ["a1 = 0, aligned, |mu|=2"]),   # a self-energy off by 2
    ("Wigner variance halved", ["a1 = 0, aligned, |mu|=2"]),
])
def test_planted_errors_are_caught(planted, settings):
    """Each planted error leaves the band at some gamma in every setting listed (all but one for SIGNAL).

    What the band cannot see at this n: errors that move E by less than about 0.02, such as a_1
    off by 10% (0.01 here); the unit tests against closed forms (tests/test_theory_kernel_ridge.py)
    hold the solver's numbers to 1e-7.
    """
    wrong = {"attention theory": lambda name: theory(name, attention_error),
             "signal dropped": lambda name: theory(name, no_signal=True),
             "Wigner variance doubled": lambda name: theory(name, wigner=2.0),
             "Wigner variance halved": lambda name: theory(name, wigner=0.5)}[planted]
    caught = {}
    for name in settings:
        mc = run(name)
        caught[name] = bool(np.any(np.abs(wrong(name) - mc.mean) > tolerance(mc.se)))
    print(planted, caught)
    assert sum(caught.values()) >= max(1, len(settings) - 1), caught
