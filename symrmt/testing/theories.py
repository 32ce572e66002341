r"""The theory under test behind one small interface: the real package, or a deliberately wrong copy.

Every property of :mod:`symrmt.testing.checks` runs on either.

:class:`PackageTheory` goes through the public API (:func:`symrmt.theory.solve_attention`,
:func:`symrmt.theory.solve_linear`, :func:`symrmt.theory.spectral_density`); :class:`DerivedTheory` solves any pair of
:class:`~symrmt.derive.FixedPointSystem` (e.g. mutated ones) with :func:`symrmt.solve.solve`,
which compiles them with :func:`symrmt.codegen.compile_system`. :mod:`symrmt.testing.planted` wraps
either to plant an error.

A :class:`~symrmt.errors.ConvergenceError` is not caught here: the properties report it
as a violation (a theory that gives no physical answer fails them).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

import symrmt.solve as solve_module
from symrmt.codegen import compile_system
from symrmt.derive import symbols as S
from symrmt.theory import ridge_solution, solve_attention, solve_linear, spectral_density

__all__ = ["Point", "Theory", "PackageTheory", "DerivedTheory", "GRAM_NAMES"]

GRAM_NAMES = ("theta", "alpha_K", "alpha_Q", "omega_KK", "omega_QQ", "omega_KQ")


@dataclass(frozen=True)
class Point:
    r"""One parameter point of the theory, everything but :math:`\gamma` (hashable, prints in full).

    ``a1, nu`` are the Hermite data of f (:math:`\nu \ge a_1^2`), ``c = p/n``, ``d`` the
    diagonal of K, and the six Gram entries of :math:`(\mu, w_K, w_Q)`.

    Examples
    --------
    >>> from symrmt.testing import Point
    >>> point = Point(a1=0.5, nu=0.5, c=1.0, theta=1.0)
    >>> point.b2, point.gram["theta"], point.without_weights() == point
    (0.25, 1.0, True)
    """

    a1: float
    nu: float
    c: float
    d: float = 0.0
    theta: float = 0.0
    alpha_K: float = 0.0
    alpha_Q: float = 0.0
    omega_KK: float = 0.0
    omega_QQ: float = 0.0
    omega_KQ: float = 0.0

    @property
    def b2(self) -> float:
        return max(self.nu - self.a1**2, 0.0)

    @property
    def gram(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in GRAM_NAMES}

    @property
    def gram_matrix(self) -> np.ndarray:
        r"""The :math:`3 \times 3` Gram matrix of :math:`(\mu, w_K, w_Q)`."""
        return np.array([[self.theta, self.alpha_K, self.alpha_Q], [self.alpha_K, self.omega_KK, self.omega_KQ],
                         [self.alpha_Q, self.omega_KQ, self.omega_QQ]])

    def replace(self, **changes) -> "Point":
        return dataclasses.replace(self, **changes)

    def without_weights(self) -> "Point":
        """:math:`w_K = w_Q = 0`, signal kept."""
        return self.replace(alpha_K=0.0, alpha_Q=0.0, omega_KK=0.0, omega_QQ=0.0, omega_KQ=0.0)

    def noise_only(self) -> "Point":
        r""":math:`\mu = 0` and :math:`w_K = w_Q = 0`."""
        return self.without_weights().replace(theta=0.0)


class Theory:
    r"""What the properties ask of a theory: ridge errors at rank one and rank r, and eigenvalue densities.

    ``attention(point, gamma)`` and ``linear(point, gamma)`` return a :class:`symrmt.theory.RidgeSolution`
    over ``gamma`` (``error``, ``phi``); ``attention_gram(point, gamma, gram)`` the same for the rank-r Gram
    matrix ``gram`` of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})` instead of the point's rank-one entries;
    ``density(point, x, eta)`` the density of :math:`K^\top X^\top X K/n` at ``x``, smoothed by ``eta``.
    Subclasses define ``_attention`` and ``_linear``; the rank-r route and the density are the package's
    unless a subclass replaces them (the derived rank-one systems do not cover them).

    Examples
    --------
    >>> from symrmt.testing import PackageTheory, Theory
    >>> isinstance(PackageTheory(), Theory)           # a theory of your own subclasses Theory, e.g. DerivedTheory
    True
    """

    name = "theory"

    def attention(self, point: Point, gamma):
        return self._attention(point, np.asarray(gamma, float))

    def linear(self, point: Point, gamma):
        return self._linear(point, np.asarray(gamma, float))

    def attention_gram(self, point: Point, gamma, gram: np.ndarray):
        return solve_attention((point.a1, point.nu), point.c, np.asarray(gamma, float), d=point.d, gram=gram)

    def density(self, point: Point, x, eta: float) -> np.ndarray:
        return np.asarray(spectral_density((point.a1, point.nu), point.c, np.asarray(x, float), eta, d=point.d).density)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class PackageTheory(Theory):
    """The real theory, through the public API with f given as its Hermite pair ``(a1, nu)``.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.testing import PackageTheory, Point
    >>> point = Point(a1=0.6057055096021589, nu=0.3942944903978412, c=1.0)    # tanh's (a_1, nu)
    >>> np.round(PackageTheory().attention(point, [0.1, 1.0]).error, 3).tolist()
    [0.453, 0.743]
    """

    name = "symrmt"

    def _attention(self, point, gamma):
        return solve_attention((point.a1, point.nu), point.c, gamma, d=point.d, gram=point.gram)

    def _linear(self, point, gamma):
        return solve_linear(point.c, gamma, gram=point.gram)


class DerivedTheory(Theory):
    """Any pair of systems (attention, linear), compiled and solved by the package's own machinery.

    Results are :class:`symrmt.theory.RidgeSolution` like the public API's.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.derive import attention_system, linear_system
    >>> from symrmt.testing import DerivedTheory, Point
    >>> theory = DerivedTheory("as derived", attention_system(1), linear_system())
    >>> point = Point(a1=0.6057055096021589, nu=0.3942944903978412, c=1.0)
    >>> np.round(theory.attention(point, [0.1]).error, 3).tolist()
    [0.453]
    """

    def __init__(self, name: str, attention, linear) -> None:
        self.name = name
        self._compiled = compile_system(attention)
        self._compiled_linear = compile_system(linear)

    def _attention(self, point, gamma):
        params = {S.c: point.c, S.gamma: gamma, S.a1: point.a1, S.b: np.sqrt(point.b2), S.d: point.d,
                  **{getattr(S, k): v for k, v in point.gram.items()}}
        return ridge_solution(solve_module.solve(self._compiled, params))

    def _linear(self, point, gamma):
        return ridge_solution(solve_module.solve(self._compiled_linear, {S.c: point.c, S.gamma: gamma,
                                                                         S.theta: point.theta}))
