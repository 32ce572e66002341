"""The a_2 outlier of K: the published position is where the Monte Carlo converges (derivations/outlier_anchor.py).

The Monte Carlo is stored (docs/figures/outlier_anchor.csv, 94 draws per case from n = 1024 to 8192: an hour on
2 cores); these tests read it, so they are quick, and the script that wrote it reproduces any row to the Lanczos
tolerance (1e-6).
"""
from __future__ import annotations

import importlib.util
import math
import pathlib

import pytest
from scipy import stats

ROOT = pathlib.Path(__file__).parents[2]
_spec = importlib.util.spec_from_file_location("outlier_anchor", ROOT / "derivations" / "outlier_anchor.py")
anchor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anchor)
ROWS = anchor.read_rows()


def test_the_formula_uses_symrmts_hermite_data():
    """The cases' (a_1, nu, a_2) are the package's own Hermite data of the same f."""
    from symrmt import hermite

    for name, f in (("relu", "relu(x)"), ("x+He2/2", "x + (x**2 - 1)/2")):
        data = hermite(f, center=True, method="numeric").values
        _, a1, nu, a2 = anchor.CASES[name]
        assert (data["a1"], data["nu"], data["a2"]) == pytest.approx((a1, nu, a2), abs=1e-12)
    assert anchor.spike(*anchor.CASES["relu"][1:]) == pytest.approx(-1.7701, abs=5e-5)   # the published value


@pytest.mark.parametrize("name", sorted(anchor.CASES))
def test_the_monte_carlo_converges_to_the_formula_at_rate_one_over_sqrt_p(name):
    s = anchor.summary(ROWS, name)
    formula = anchor.spike(*anchor.CASES[name][1:])
    # The n -> infinity position: within 2.5 standard errors of the fit (a 1.2% two-sided false alarm).
    assert abs(s["L"] - formula) < 2.5 * s["L_se"]
    # The model L + A p^(-1/2) describes the ladder: its chi-square is not in the upper 1% tail.
    assert stats.chi2.sf(s["chi2"], s["dof"]) > 0.01
    # And the gap is finite size, shown shrinking: the first rung's gap exceeds the last's by more than five
    # standard errors of their difference.
    first, last = s["table"][0], s["table"][-1]
    assert (first[3] - formula) - (last[3] - formula) > 5 * math.hypot(first[4], last[4])


@pytest.mark.parametrize("planted", ["m4", "a2"])
def test_a_planted_error_in_the_formula_is_caught(planted):
    """The same test rejects the position with m_4 = 4 for the Gaussian 3, or with a_2 10% high."""
    _, a1, nu, a2 = anchor.CASES["relu"]
    wrong = anchor.spike(a1, nu, a2, m4=4.0) if planted == "m4" else anchor.spike(a1, nu, 1.1 * a2)
    s = anchor.summary(ROWS, "relu")
    assert abs(s["L"] - wrong) > 2.5 * s["L_se"]
