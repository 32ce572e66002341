r"""Mutation check of the property suite: deliberately wrong theories must be caught.

Each mutant is a copy of the package's systems (``attention_system()``,
``linear_system()``) with one plausible derivation error planted -- a wrong sign, a
dropped term, a swapped index -- built here with SymPy (``dataclasses.replace`` of
the :class:`~symrmt.derive.FixedPointSystem`, ``xreplace`` of its Dyson matrix or
Woodbury form); no package file is touched. Each is compiled by
:func:`symrmt.codegen.compile_system` and solved by :func:`symrmt.solve.solve`
(:class:`properties.theories.DerivedTheory`),
then every property of :mod:`properties.checks` runs on it at fixed points.

Asserted:

* every check passes on the real theory at these points (so a catch is not an
  artefact of the points), and on the *unmutated* derivation rebuilt through the
  same route (so a catch is not an artefact of the route);
* every mutant violates at least one property, and in particular each property
  listed for it in :data:`MUTANTS` (the catch table, kept honest by the test).

Catches observed at :data:`POINT` ("refusal": the mutant's system has no physical
solution, so the solver raises and the property reports it):

=========================  ==========================================================
mutant                     properties violated
=========================  ==========================================================
swap_alpha_in_sigma        large_gamma, weight_rescaling, one_sided_weights
woodbury_sign              linear_regression, large_c (values); the rest by refusal
drop_tau_a                 large_gamma, linear_f, linear_regression, small_c
tau_a_unweighted           large_gamma, linear_f, linear_regression, small_c, bounds
covariance_t11_t22         all but linear_f / linear_regression (b = 0 there), by refusal
drop_t12                   noise_only_section3
kappa_sign                 large_gamma, noise_only_section3, linear_f, large_c
wigner_variance_doubled    large_gamma, noise_only_section3, large_c
drop_theta_yy_in_data      large_gamma, linear_f, linear_regression, small_c, large_c
drop_s_terms_of_l          large_gamma, linear_f
transpose_l                large_gamma (and only it: K C K^T vs K^T C K differs from m_1 on)
=========================  ==========================================================
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import pytest
import sympy as sp

from properties.checks import ALL_CHECKS, PropertyViolation
from properties.theories import DerivedTheory, PackageTheory, Point
from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import DYSON, PHI, ridge_system
from symrmt.derive.gaussian_equivalent import data_low_rank, score_low_rank
from symrmt.derive.pencil import ridge_pencil
from symrmt.derive.woodbury import PlacedTerm
from symrmt.geometry import Geometry

# Signal, asymmetric weights (all Gram entries distinct and nonzero), d != 0, c != 1, b^2 > 0.
_G = Geometry(mu_norm=1.0, wk_norm=1.2, wq_norm=0.8, cos_mu_wk=0.6, cos_mu_wq=-0.4, cos_wk_wq=0.1)
POINT = Point(a1=0.7, nu=0.9, c=1.5, d=0.3, theta=_G.theta, alpha_K=_G.alpha_K, alpha_Q=_G.alpha_Q,
              omega_KK=_G.omega_KK, omega_QQ=_G.omega_QQ, omega_KQ=_G.omega_KQ)


# --------------------------------------------------------------------------- building mutants


def _with_woodbury(system, core=None, gram=None, source=None):
    """The system with its Woodbury form Phi given new matrices."""
    w = system.observables[PHI]
    new = dataclasses.replace(w, core=w.core if core is None else core, gram=w.gram if gram is None else gram,
                              source=w.source if source is None else source)
    return dataclasses.replace(system, observables={**system.observables, PHI: new})


def _with_dyson(system, mapping):
    """Replace symbols in the printed Dyson matrix M(lambda) (R = M^{-1} follows, as in the package)."""
    return dataclasses.replace(system, definitions={**system.definitions,
                                                    DYSON: system.definitions[DYSON].xreplace(mapping)})


def _taus_weighted():
    return [S.tau_symbol(i, j, True) for i in range(1, 4) for j in range(i, 4)]


def _core_entries(system, pairs, value=0):
    form = system.observables[PHI]
    core = form.core.copy()
    for (u, a), (v, b) in pairs:
        core[form.labels.index(f"{u}^({a})"), form.labels.index(f"{v}^({b})")] = value
    return core


def _attention_terms(transposed: bool = False):
    delta, data = score_low_rank(), data_low_rank()
    scale = S.a1 / S.c
    first, second = (delta.transpose(), delta) if transposed else (delta, delta.transpose())
    return [PlacedTerm(2, 1, first, scale), PlacedTerm(1, 2, second, scale), PlacedTerm(3, 3, data, sp.Integer(1))]


def swap_alpha_in_sigma(d):
    """Sigma with alpha_K and alpha_Q exchanged (docs/theory.md section 6 warns: invisible when w_K = w_Q)."""
    return _with_woodbury(d, core=d.observables[PHI].core.xreplace({S.alpha_K: S.alpha_Q, S.alpha_Q: S.alpha_K}))


def woodbury_sign(d):
    """y^T Q y/n = tau_11 + (not -) g^T C (I + G C)^{-1} g: core and Gram negated."""
    return _with_woodbury(d, core=-d.observables[PHI].core, gram=-d.observables[PHI].gram)


def drop_tau_a(d):
    """The (Z^T u)^T R (Z^T v) forms dropped: every tau^A set to 0."""
    return _with_woodbury(d, gram=d.observables[PHI].gram.xreplace({t: 0 for t in _taus_weighted()}))


def tau_a_unweighted(d):
    """E[lambda R] replaced by E[R] in the projection forms (the lambda weight forgotten)."""
    swap = {S.tau_symbol(i, j, True): S.tau_symbol(i, j) for i in range(1, 4) for j in range(i, 4)}
    return _with_woodbury(d, gram=d.observables[PHI].gram.xreplace(swap))


def covariance_t11_t22(d):
    """Covariance map with b^2 t_11 and b^2 t_22 exchanged (placed along, not across, the Wigner blocks)."""
    t11, t22 = S.trace_symbol(1, 1), S.trace_symbol(2, 2)
    return _with_dyson(d, {t11: t22, t22: t11})


def drop_t12(d):
    """Off-diagonal self-energy b^2 t_12 dropped."""
    return _with_dyson(d, {S.trace_symbol(1, 2): 0})


def kappa_sign(d):
    """kappa = d + a_1 instead of d - a_1 (wrong sign of the identity shift of K_N)."""
    return _with_dyson(d, {S.d: S.d + 2 * S.a1})


def wigner_variance_doubled(d):
    """Self-energy 2 b^2 T instead of b^2 T (wrong normalization of E[W X W]/p)."""
    return _with_dyson(d, {S.b: sp.sqrt(2) * S.b})


def drop_theta_yy_in_data(d):
    """P/n without its theta y y^T term (the data Gram keeps only s y^T + y s^T)."""
    return _with_woodbury(d, core=_core_entries(d, [(("y", 3), ("y", 3))]))


def drop_s_terms_of_l(d):
    """L without s y^T + y s^T (the two 1's of Sigma)."""
    pairs = [(("y", 2), ("s", 1)), (("s", 2), ("y", 1)), (("s", 1), ("y", 2)), (("y", 1), ("s", 2))]
    return _with_woodbury(d, core=_core_entries(d, pairs))


def transpose_l(d):
    """L^T placed where L belongs: the theory of K C K^T instead of K^T C K (w_K and w_Q exchange roles)."""
    pencil = ridge_pencil(S.a1 * S.lam + S.d - S.a1, S.b, S.c * S.lam)
    return ridge_system("attention, L transposed", pencil, _attention_terms(transposed=True), tuple(d.parameters),
                        1 + S.a1**2 + S.b**2 + S.d**2)


#: name -> (attention mutation, linear mutation or None, checks that must catch it).
MUTANTS = {
    "swap_alpha_in_sigma": (swap_alpha_in_sigma, None,
                            {"check_weight_rescaling", "check_one_sided_weights", "check_large_gamma"}),
    "woodbury_sign": (woodbury_sign, woodbury_sign,
                      {"check_large_gamma", "check_linear_f", "check_linear_regression", "check_small_c"}),
    "drop_tau_a": (drop_tau_a, drop_tau_a,
                   {"check_large_gamma", "check_linear_f", "check_linear_regression", "check_small_c"}),
    "tau_a_unweighted": (tau_a_unweighted, tau_a_unweighted,
                         {"check_large_gamma", "check_linear_f", "check_linear_regression", "check_small_c"}),
    "covariance_t11_t22": (covariance_t11_t22, None,
                           {"check_scaling", "check_noise_only_section3", "check_large_gamma"}),
    "drop_t12": (drop_t12, None, {"check_noise_only_section3"}),
    "kappa_sign": (kappa_sign, None, {"check_noise_only_section3", "check_linear_f", "check_large_gamma"}),
    "wigner_variance_doubled": (wigner_variance_doubled, None,
                                {"check_noise_only_section3", "check_large_gamma", "check_large_c"}),
    "drop_theta_yy_in_data": (drop_theta_yy_in_data, drop_theta_yy_in_data,
                              {"check_linear_regression", "check_linear_f", "check_large_gamma", "check_small_c"}),
    "drop_s_terms_of_l": (drop_s_terms_of_l, None, {"check_linear_f", "check_large_gamma"}),
    "transpose_l": (transpose_l, None, {"check_large_gamma"}),
}


@lru_cache(maxsize=None)
def mutant_theory(name: str) -> DerivedTheory:
    attention, linear, _ = MUTANTS[name]
    return DerivedTheory(name, attention(attention_system()),
                         linear(linear_system()) if linear else linear_system())


def outcomes(theory) -> dict[str, str]:
    """Run every check at POINT: 'pass', 'violated: ...' or 'error: ...' per check."""
    result = {}
    for name, check in ALL_CHECKS.items():
        try:
            check(theory, POINT)
            result[name] = "pass"
        except PropertyViolation as exc:
            result[name] = f"violated: {str(exc)[:200]}"
        except Exception as exc:  # noqa: BLE001 - a crash on a mutant is reported, not hidden
            result[name] = f"error: {type(exc).__name__}: {str(exc)[:200]}"
    return result


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("theory", [PackageTheory(), "unmutated"], ids=["public-api", "rebuilt"])
def test_every_check_passes_on_the_real_theory(theory):
    if theory == "unmutated":
        theory = DerivedTheory("unmutated", attention_system(), linear_system())
    failed = {k: v for k, v in outcomes(theory).items() if v != "pass"}
    assert not failed, failed


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_caught(name):
    got = outcomes(mutant_theory(name))
    violated = {k for k, v in got.items() if v.startswith("violated")}
    crashed = {k: v for k, v in got.items() if v.startswith("error")}
    expected = MUTANTS[name][2]
    assert violated, f"mutant {name} passed every property: {got}"
    assert expected <= violated, f"mutant {name}: expected {sorted(expected - violated)} to catch it; got {got}"
    assert not crashed, f"mutant {name}: checks crashed instead of reporting: {crashed}"
