r"""Planted errors: deliberately wrong theories, and which properties of the catalogue catch each.

A property that no error could make fail would prove nothing. Each :class:`PlantedError` builds a
wrong theory in one of two ways, without touching a package file:

* a wrong copy of the derivation: the package's systems (``attention_system()``,
  ``linear_system()``) with one plausible error planted by SymPy (``dataclasses.replace`` of the
  :class:`~symrmt.derive.FixedPointSystem`, ``xreplace`` of its Dyson matrix or Woodbury form),
  compiled and solved by the package's own machinery (:class:`~symrmt.testing.theories.DerivedTheory`);
* a wrong output: the package's theory with its answer perturbed (an error scaled by 1.01, a density
  scaled by 1.01), :class:`Perturbed`.

:func:`power` runs every property on every planted error at :data:`POINT` and returns which
catch it; docs/verify.md shows the table, and tests/validation/test_property_mutations.py checks
that it is what the code gives and that every property catches at least one planted error.
A catch "by refusal" means the wrong system has no physical solution there: the solver raises,
and the property reports that as a violation.

Examples
--------
>>> list(PLANTED)[:3]
['error_scaled', 'a1_dropped_in_one_block', 'swap_wk_wq_in_one_term']
>>> PLANTED["swap_wk_wq_in_one_term"].description
'One term of Sigma with w_K and w_Q exchanged: Sigma_{k y} = alpha_K instead of alpha_Q (both of its places)'
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import sympy as sp

from ..derive import attention_system, linear_system
from ..derive import symbols as S
from ..derive.attention import DYSON, ERROR, PHI, ridge_system
from ..derive.gaussian_equivalent import data_low_rank, score_low_rank
from ..derive.pencil import ridge_pencil
from ..derive.woodbury import PlacedTerm
from ..geometry import Geometry
from .checks import CATALOGUE, PropertyViolation
from .theories import DerivedTheory, PackageTheory, Point, Theory

__all__ = ["PlantedError", "Perturbed", "PLANTED", "POINT", "planted_theory", "outcomes", "power", "power_markdown"]

# Signal, asymmetric weights (all Gram entries distinct and nonzero), d != 0, c != 1, b^2 > 0: no planted
# error is invisible here by a symmetry of the point (w_K = w_Q, a1 = 0, mu = 0 hide several).
_G = Geometry(mu_norm=1.0, wk_norm=1.2, wq_norm=0.8, cos_mu_wk=0.6, cos_mu_wq=-0.4, cos_wk_wq=0.1)
#: The point every property runs at in :func:`power`.
POINT = Point(a1=0.7, nu=0.9, c=1.5, d=0.3, theta=_G.theta, alpha_K=_G.alpha_K, alpha_Q=_G.alpha_Q,
              omega_KK=_G.omega_KK, omega_QQ=_G.omega_QQ, omega_KQ=_G.omega_KQ)


class Perturbed(Theory):
    """The package's theory with its attention error (rank one and rank r) or its density changed.

    ``error`` is a factor, or a function ``(E, gamma) -> wrong E``; ``density`` a factor.
    """

    def __init__(self, name: str, error: float | Callable = 1.0, density: float = 1.0,
                 base: Theory | None = None) -> None:
        self.name, self._error, self._density = name, error, density
        self._base = PackageTheory() if base is None else base

    def _attention(self, point, gamma):
        return self._wrong(self._base.attention(point, gamma), gamma)

    def _linear(self, point, gamma):
        return self._base.linear(point, gamma)

    def attention_gram(self, point, gamma, gram):
        return self._wrong(self._base.attention_gram(point, gamma, gram), np.asarray(gamma, float))

    def density(self, point, x, eta):
        return self._density * self._base.density(point, x, eta)

    def _wrong(self, solution, gamma):
        if self._error == 1.0:
            return solution
        error = np.asarray(solution.error)
        wrong = self._error(error, gamma) if callable(self._error) else self._error * error
        observables = {key: (wrong if key == ERROR else value) for key, value in solution.observables.items()}
        return dataclasses.replace(solution, observables=observables)


# --------------------------------------------------------------------------- wrong copies of the derivation


def _with_woodbury(system, core=None, gram=None):
    """The system with its Woodbury form Phi given new matrices."""
    w = system.observables[PHI]
    new = dataclasses.replace(w, core=w.core if core is None else core, gram=w.gram if gram is None else gram)
    return dataclasses.replace(system, observables={**system.observables, PHI: new})


def _with_dyson(system, mapping):
    """Replace symbols in the printed Dyson matrix M(lambda) (R = M^{-1} follows, as in the package)."""
    return dataclasses.replace(system, definitions={**system.definitions,
                                                    DYSON: system.definitions[DYSON].xreplace(mapping)})


def _core(system):
    return system.observables[PHI]


def _core_entries(system, pairs, value=0):
    form = _core(system)
    core = form.core.copy()
    for (u, a), (v, b) in pairs:
        core[form.labels.index(f"{u}^({a})"), form.labels.index(f"{v}^({b})")] = value
    return core


def _taus_weighted():
    return [S.tau_symbol(i, j, True) for i in range(1, 4) for j in range(i, 4)]


def swap_alpha_in_sigma(d):
    """Sigma with alpha_K and alpha_Q exchanged everywhere (invisible when w_K = w_Q)."""
    return _with_woodbury(d, core=_core(d).core.xreplace({S.alpha_K: S.alpha_Q, S.alpha_Q: S.alpha_K}))


def swap_wk_wq_in_one_term(d):
    """One term of Sigma with w_K and w_Q exchanged: Sigma_{k y} = alpha_K instead of alpha_Q (both of its places)."""
    form = _core(d)
    core = form.core.copy()
    for row, column in (("y^(1)", "k^(2)"), ("k^(2)", "y^(1)")):
        i, j = form.labels.index(row), form.labels.index(column)
        core[i, j] = core[i, j].xreplace({S.alpha_Q: S.alpha_K})
    return _with_woodbury(d, core=core)


def a1_dropped_in_one_block(d):
    """The factor a_1 of L dropped in one block of the Woodbury core (rows of block 1, columns of block 2)."""
    form = _core(d)
    core = form.core.copy()
    for i, row in enumerate(form.labels):
        for j, column in enumerate(form.labels):
            if row.endswith("^(1)") and column.endswith("^(2)"):
                core[i, j] = core[i, j].xreplace({S.a1: 1})
    return _with_woodbury(d, core=core)


def alpha_q_sign_lost(d):
    """The sign of mu^T w_Q lost in the projection forms: abs(alpha_Q) where alpha_Q belongs."""
    return _with_woodbury(d, gram=_core(d).gram.xreplace({S.alpha_Q: sp.Abs(S.alpha_Q)}))


def a1_dropped_from_l(d):
    """The factor a_1 of L dropped in both of its blocks (the Hermite factor of the low-rank part forgotten)."""
    form = _core(d)
    core = form.core.copy()
    for i, row in enumerate(form.labels):
        for j, column in enumerate(form.labels):
            if {row[-4:], column[-4:]} == {"^(1)", "^(2)"}:
                core[i, j] = core[i, j].xreplace({S.a1: 1})
    return _with_woodbury(d, core=core)


def woodbury_sign(d):
    """y^T Q y/n = tau_11 + (not -) g^T C (I + G C)^{-1} g: core and Gram negated."""
    return _with_woodbury(d, core=-_core(d).core, gram=-_core(d).gram)


def drop_tau_a(d):
    """The (Z^T u)^T R (Z^T v) forms dropped: every tau^A set to 0."""
    return _with_woodbury(d, gram=_core(d).gram.xreplace({t: 0 for t in _taus_weighted()}))


def tau_a_unweighted(d):
    """E[lambda R] replaced by E[R] in the projection forms (the lambda weight forgotten)."""
    swap = {S.tau_symbol(i, j, True): S.tau_symbol(i, j) for i in range(1, 4) for j in range(i, 4)}
    return _with_woodbury(d, gram=_core(d).gram.xreplace(swap))


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


def self_energy_b_not_squared(d):
    """Self-energy b T instead of b^2 T (the variance written as the standard deviation)."""
    return _with_dyson(d, {S.b: sp.sqrt(S.b)})


def drop_theta_yy_in_data(d):
    """P/n without its theta y y^T term (the data Gram keeps only s y^T + y s^T)."""
    return _with_woodbury(d, core=_core_entries(d, [(("y", 3), ("y", 3))]))


def drop_s_terms_of_l(d):
    """L without s y^T + y s^T (the two 1's of Sigma)."""
    pairs = [(("y", 2), ("s", 1)), (("s", 2), ("y", 1)), (("s", 1), ("y", 2)), (("y", 1), ("s", 2))]
    return _with_woodbury(d, core=_core_entries(d, pairs))


def transpose_l(d):
    """L^T placed where L belongs: the theory of K C K^T instead of K^T C K (w_K and w_Q exchange roles)."""
    delta, data = score_low_rank(), data_low_rank()
    scale = S.a1 / S.c
    terms = [PlacedTerm(2, 1, delta.transpose(), scale), PlacedTerm(1, 2, delta, scale),
             PlacedTerm(3, 3, data, sp.Integer(1))]
    pencil = ridge_pencil(S.a1 * S.lam + S.d - S.a1, S.b, S.c * S.lam)
    return ridge_system("attention, L transposed", pencil, terms, tuple(d.parameters), 1 + S.a1**2 + S.b**2 + S.d**2)


@dataclass(frozen=True)
class PlantedError:
    """One planted error: ``build()`` gives the wrong theory; ``description`` says what is wrong."""

    name: str
    description: str
    build: Callable[[], Theory]


def _derived(name: str, attention: Callable, linear: Callable | None = None) -> PlantedError:
    def build() -> Theory:
        return DerivedTheory(name, attention(attention_system()),
                             linear(linear_system()) if linear else linear_system())

    return PlantedError(name, (attention.__doc__ or "").strip().splitlines()[0].rstrip("."), build)


#: name -> PlantedError: the three of issue 25 first (an error scaled by 1.01, a_1 dropped from one block,
#: w_K and w_Q swapped in one term), then the derivation errors of the property suite and the density's.
PLANTED: dict[str, PlantedError] = {p.name: p for p in (
    PlantedError("error_scaled", "E_attn multiplied by 1.01 (rank one and rank r)",
                 lambda: Perturbed("error_scaled", error=1.01)),
    _derived("a1_dropped_in_one_block", a1_dropped_in_one_block),
    _derived("swap_wk_wq_in_one_term", swap_wk_wq_in_one_term),
    PlantedError("error_missing_gamma", "E = -gamma dPhi/dgamma instead of -gamma^2 dPhi/dgamma (E/gamma reported)",
                 lambda: Perturbed("error_missing_gamma", error=lambda error, gamma: error / gamma)),
    _derived("a1_dropped_from_l", a1_dropped_from_l),
    _derived("swap_alpha_in_sigma", swap_alpha_in_sigma),
    _derived("alpha_q_sign_lost", alpha_q_sign_lost),
    _derived("woodbury_sign", woodbury_sign, woodbury_sign),
    _derived("drop_tau_a", drop_tau_a, drop_tau_a),
    _derived("tau_a_unweighted", tau_a_unweighted, tau_a_unweighted),
    _derived("covariance_t11_t22", covariance_t11_t22),
    _derived("drop_t12", drop_t12),
    _derived("kappa_sign", kappa_sign),
    _derived("wigner_variance_doubled", wigner_variance_doubled),
    _derived("self_energy_b_not_squared", self_energy_b_not_squared),
    _derived("drop_theta_yy_in_data", drop_theta_yy_in_data, drop_theta_yy_in_data),
    _derived("drop_s_terms_of_l", drop_s_terms_of_l),
    _derived("transpose_l", transpose_l),
    PlantedError("density_scaled", "the eigenvalue density multiplied by 1.01",
                 lambda: Perturbed("density_scaled", density=1.01)),
)}


@lru_cache(maxsize=None)
def planted_theory(name: str) -> Theory:
    """The wrong theory of :data:`PLANTED` ``[name]``, built once."""
    return PLANTED[name].build()


def outcomes(theory: Theory, point: Point = POINT, properties=None) -> dict[str, str]:
    """Every property at ``point``: ``"pass"``, ``"violated: ..."`` or ``"error: ..."`` (a check that crashed)."""
    result = {}
    for name in properties or CATALOGUE:
        try:
            CATALOGUE[name](theory, point)
            result[name] = "pass"
        except PropertyViolation as exc:
            result[name] = f"violated: {str(exc)[:300]}"
        except Exception as exc:  # noqa: BLE001 - a crash on a planted error is reported, not hidden
            result[name] = f"error: {type(exc).__name__}: {str(exc)[:300]}"
    return result


def power(point: Point = POINT, planted=None) -> dict[str, dict[str, str]]:
    """planted error -> {property: ``"value"`` or ``"refusal"``} for the properties it violates at ``point``.

    ``"value"``: a compared number is off; ``"refusal"``: the wrong theory had no physical solution
    where the property asked for one.
    """
    table = {}
    for name in planted or PLANTED:
        got = outcomes(planted_theory(name), point)
        table[name] = {k: ("refusal" if "gave no physical solution" in v else "value")
                       for k, v in got.items() if v.startswith("violated")}
    return table


def power_markdown(table: dict[str, dict[str, str]]) -> str:
    """The table of docs/verify.md: one row per planted error, the properties that catch it (refusals marked)."""
    lines = ["| planted error | what is wrong | caught by |", "|---|---|---|"]
    for name, caught in table.items():
        cells = ", ".join(f"`{p}`" + (" (refusal)" if how == "refusal" else "")
                          for p, how in caught.items()) or "nothing"
        lines.append(f"| `{name}` | {PLANTED[name].description} | {cells} |")
    return "\n".join(lines)
