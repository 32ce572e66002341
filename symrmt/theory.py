r"""Deterministic equivalents of the interpolation errors: the public entry points.

.. math::

    E_\mathrm{attn}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{attn}(\gamma),
    \qquad E_\mathrm{lin}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{lin}(\gamma),

with :math:`\Phi = y^\top Q y / n` given by the derived systems
:func:`symrmt.derive.attention_system` and :func:`symrmt.derive.linear_system`
(print them with :func:`latex` or ``symrmt latex``), compiled by
:func:`symrmt.codegen.compile_system` and solved by :func:`symrmt.solve.solve`, which takes
the parameters and returns the observables keyed by the systems' own SymPy symbols.
Every function here is vectorized: parameters broadcast against each other (a
curve in :math:`\gamma`, a grid in :math:`(c, \gamma)`, a stack of Gram matrices, ...).

The geometry of the signal :math:`\mu` and of rank-:math:`r` weights
:math:`W_K^\top W_Q = I + \sum_{k\le r} w_K^{(k)} w_Q^{(k)\top}` enters only through the
Gram matrix of :math:`(\mu, w_K^{(1)}, \dots, w_K^{(r)}, w_Q^{(1)}, \dots, w_Q^{(r)})`
(size :math:`1 + 2r`, in that order), given as ``gram=G`` with shape
``(..., 1 + 2r, 1 + 2r)``; for :math:`r = 1` also as a :class:`~symrmt.geometry.Geometry`
(norms and cosines) or a dict of the six entries ``theta, alpha_K, alpha_Q, omega_KK,
omega_QQ, omega_KQ``.

The symbolic build happens once per process and rank on first use (a few seconds);
a new nonlinearity only costs its Hermite coefficients, since the systems are derived
for general :math:`(a_1, \nu)`. Each function takes ``form``: ``"auto"`` (the default: the algebraic form of the
system, with no quadrature, where it holds, several times faster; the quadrature form elsewhere),
``"algebraic"`` or ``"quadrature"`` (the reference); see :mod:`symrmt.forms` and its
:data:`~symrmt.forms.DEFAULT_FORM`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Union

import numpy as np

from .errors import ConvergenceError, ParameterError, SymrmtInputError
from .forms import DEFAULT_FORM, check_form, solve_in_form
from .geometry import Geometry, gram_rank, resolve_gram
from .solve import PointFailure, SolveResult
from .validate import (C_RANGE, MAX_DIAGONAL, MAX_GAMMA, RANGE_HINT, choice, integer, positive_array,
                       positive_scalar, real_array, within)

__all__ = ["attention_error", "linear_error", "solve_attention", "solve_linear", "hermite_data", "ridgeless_error",
           "RidgeSolution", "RidgelessLimit", "ridge_solution", "gram_parameters", "latex", "MAX_RANK", "MAX_DIGITS",
           "kernel_parameters", "solve_kernel_ridge", "kernel_ridge_error"]

ArrayLike = Union[float, np.ndarray, list]



@dataclass(frozen=True)
class RidgeSolution:
    r"""The solved system at every point: :math:`E`, :math:`\Phi = y^\top Q y/n`, the unknowns and residuals.

    With ``partial=True`` the arrays are :class:`numpy.ma.MaskedArray`, masked where the
    point could not be solved (``failed``; the data there is NaN, also after ``filled()``),
    and ``failures`` says why, point by point.
    """

    error: np.ndarray
    phi: np.ndarray
    unknowns: np.ndarray
    residual: np.ndarray
    unknown_names: tuple = ()
    failed: np.ndarray | None = None
    failures: tuple[PointFailure, ...] = ()

    def as_dict(self) -> dict:
        """Plain lists: ``error``, ``phi``, ``residual`` and one entry per unknown."""
        from .display import solve_as_dict

        return solve_as_dict(self, self.unknown_names)

    def to_csv(self, path=None, gamma=None) -> str:
        """CSV, one row per point (``gamma`` adds it as the first column); written to ``path`` if given."""
        from .display import to_csv

        return to_csv(self, path, gamma)

    def _repr_html_(self) -> str:
        from .display import solve_html

        return solve_html(self, unknowns=self.unknown_names)


def hermite_data(f) -> tuple[Any, Any]:
    """``(a_1, nu)`` of a centered nonlinearity without parameters (string, SymPy expression,
    HermiteCoefficients), of a dict ``{"a1", "nu"}``, or a pair ``(a_1, nu)`` taken as it is."""
    if isinstance(f, tuple):
        if len(f) != 2:
            raise SymrmtInputError(f"f = {f!r}: a tuple must be the Hermite pair (a_1, nu).")
        return f
    if isinstance(f, Mapping):
        missing = [k for k in ("a1", "nu") if k not in f]
        if missing:
            raise SymrmtInputError(f"f = {f!r}: a dict of Hermite data needs the keys 'a1' and 'nu' "
                                   f"(missing {missing}).")
        return f["a1"], f["nu"]
    data = _as_hermite(f)
    data.require_centered()
    return data.a1, data.nu


def _as_hermite(f):
    """f's :class:`~symrmt.nonlinearity.HermiteCoefficients`, or None for Hermite data given as numbers."""
    if isinstance(f, (tuple, Mapping)):
        return None
    from .nonlinearity import HermiteCoefficients, hermite

    return f if isinstance(f, HermiteCoefficients) else hermite(f)


def _ratio(c: ArrayLike) -> np.ndarray:
    """``c`` read as the ratio p/n: positive and in :data:`~symrmt.validate.C_RANGE`."""
    return within("c", positive_array("c", c), *C_RANGE, RANGE_HINT)


def _ridge(gamma: ArrayLike) -> np.ndarray:
    """``gamma`` read as the ridge: positive and at most :data:`~symrmt.validate.MAX_GAMMA`."""
    return within("gamma", positive_array("gamma", gamma), 0.0, MAX_GAMMA, RANGE_HINT)


def _diagonal(d: ArrayLike) -> np.ndarray:
    """``d`` read as the diagonal K_ii: real, |d| at most :data:`~symrmt.validate.MAX_DIAGONAL`."""
    return within("d", real_array("d", d), -MAX_DIAGONAL, MAX_DIAGONAL, RANGE_HINT)


def gram_parameters(geometry: Geometry | None = None, gram: Any = None) -> tuple[int, dict]:
    r"""``(rank, {Gram entry symbol: array})`` of the geometry, from a Geometry, a dict of six entries or a Gram matrix.

    The geometry is checked by :func:`symrmt.geometry.resolve_gram` (the one owner of Gram
    matrices); a Gram matrix ``G`` of shape ``(..., 1 + 2r, 1 + 2r)`` is the Gram matrix of
    :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, whose leading dimensions broadcast with the
    other parameters. The keys are the attention system's parameter symbols
    (:func:`symrmt.derive.symbols.gram_positions`).
    """
    matrix = resolve_gram(geometry, gram)
    rank = gram_rank(matrix)
    from .derive.symbols import gram_positions  # lazy: SymPy only when a system is solved

    return rank, {symbol: matrix[..., i, j] for symbol, (i, j) in gram_positions(rank).items()}


def _hermite_arrays(f, params: Mapping | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(a_1, b)`` arrays of a centered f; an f with parameters is evaluated at ``params`` (arrays broadcast)."""
    data = _as_hermite(f)
    names = [s.name for s in getattr(data, "parameters", ())]
    if names:
        from .nonlinearity.parametric import named_values

        values = named_values(params, names, data.f)
        out = data.numeric(**values)
        data.require_centered(out, values)
        a1, nu = real_array("a_1", out["a1"]), real_array("nu", out["nu"])
    else:
        if params:
            raise ParameterError(f"params = {params!r}: f = {getattr(data, 'f', f)!r} has no parameters; "
                                 "leave params out.")
        a1, nu = hermite_data(f if data is None else data)
        a1, nu = real_array("a_1", a1), real_array("nu", nu)
    b2 = nu - a1**2
    if np.any(b2 < -1e-12 * np.maximum(1, nu)):
        raise SymrmtInputError("need nu >= a_1^2 (nu = E f^2 bounds a_1 = E[xi f] by Cauchy-Schwarz).")
    return a1, np.sqrt(np.clip(b2, 0, None))


def _check_broadcast(shapes: Mapping[str, tuple]) -> None:
    """Name every input when the shapes do not broadcast (the solver only knows its own symbols)."""
    try:
        np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ParameterError(f"the shapes of {listed} do not broadcast together (NumPy rules): give arrays "
                             "whose shapes broadcast, e.g. one axis per swept input.") from None


def ridge_solution(result: SolveResult, partial: bool = False) -> RidgeSolution:
    """The :class:`RidgeSolution` of a solved ridge system (:func:`symrmt.derive.attention.ridge_system`).

    With ``partial`` the arrays are masked where ``result.failed``.
    """
    from .derive.attention import ERROR, PHI

    failed = result.failed if result.failed is not None else np.zeros(np.shape(result.residual), bool)
    arrays = [result[ERROR], result[PHI], result.unknowns, result.residual]
    if partial:
        arrays = [masked(a, failed) for a in arrays]
    return RidgeSolution(*arrays, tuple(str(t) for t in result.unknown_keys), failed, result.failures)


def masked(values: np.ndarray, failed: np.ndarray) -> np.ma.MaskedArray:
    """``values`` masked where ``failed`` (broadcast over leading axes), NaN underneath and as fill value.

    A failed point then cannot pass for a number: it prints as ``--``, reductions skip it, and
    ``np.asarray`` or ``filled()`` give NaN, never a plausible value.
    """
    data = np.array(values, dtype=np.result_type(values, float))
    mask = np.broadcast_to(failed, data.shape)
    data[mask] = np.nan
    return np.ma.MaskedArray(data, mask=mask.copy(), fill_value=np.nan)


def solve_attention(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                    gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                    partial: bool = False, form: str = DEFAULT_FORM) -> RidgeSolution:
    r"""Solve the attention system; returns the error, :math:`\Phi`, the unknowns and the residuals.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or ``{"a1": ..., "nu": ...}``
        The nonlinearity (must have :math:`a_0 = 0`), or its Hermite data (arrays broadcast).
    c, gamma : array_like
        :math:`c = p/n` in :data:`~symrmt.validate.C_RANGE` and the ridge
        :math:`0 < \gamma \le` :data:`~symrmt.validate.MAX_GAMMA`; broadcast together.
    geometry : Geometry, optional
        Norms and cosines of :math:`(\mu, w_K, w_Q)` (rank 1); default none.
    d : array_like
        Diagonal :math:`K_{ii}`, :math:`|d| \le` :data:`~symrmt.validate.MAX_DIAGONAL`.
    gram : array_like or dict, optional
        Instead of ``geometry``: the Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`,
        shape ``(..., 1 + 2r, 1 + 2r)`` (rank-:math:`r` weights), or a dict of the six rank-1
        entries ``theta, alpha_K, alpha_Q, omega_KK, omega_QQ, omega_KQ``.
    params : dict, optional
        Values of f's symbolic parameters (the names in the formula other than x, as in
        ``"erf(s*x)"``), arrays that broadcast with the rest: ``params={"s": [0.5, 1.0]}``.
    partial : bool
        What a point the solver cannot solve does (each point is solved on its own; the usual
        cause is a :math:`\gamma` too small for the quadrature near :math:`c = 1`). False
        (default): :class:`~symrmt.errors.ConvergenceError` naming it, with every failed point
        in its ``failures``. True: the solution of the other points, every array a
        :class:`numpy.ma.MaskedArray` masked at the failed ones (NaN underneath), with
        ``failed`` and ``failures`` (index, parameters, reason) saying where and why.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it (:mod:`symrmt.forms`); the numbers agree to about 1e-9.

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, or outside its range.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.
    """
    check_form(form)
    rank, values = kernel_parameters(f, c, gamma, geometry, d, gram, params)
    return ridge_solution(solve_in_form("attention", rank, values, form, partial), partial)


def kernel_parameters(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                      gram: Any = None, params: Mapping[str, ArrayLike] | None = None) -> tuple[int, dict]:
    r"""``(rank, {symbol: array})``: the parameters of a model of the attention matrix :math:`K`, bound by symbol.

    :math:`c, \gamma, a_1, b, d` and the Gram entries of the geometry (:func:`gram_parameters`), keyed by
    the symbols of :mod:`symrmt.derive.symbols`; arguments as in :func:`solve_attention`. Every system
    built on :math:`K` (attention, kernel ridge) takes exactly these.
    """
    from .derive import symbols as S

    a1, b = _hermite_arrays(f, params)
    rank, geometry_params = gram_parameters(geometry, gram)
    values = {S.c: _ratio(c), S.gamma: _ridge(gamma), S.a1: a1, S.b: b, S.d: _diagonal(d), **geometry_params}
    hermite_shapes = {str(k): np.shape(v) for k, v in params.items()} if params else {"a_1, nu": a1.shape}
    _check_broadcast({"c": values[S.c].shape, "gamma": values[S.gamma].shape, "d": values[S.d].shape,
                      **hermite_shapes, ("gram" if gram is not None else "geometry"): values[S.theta].shape})
    return rank, values


def solve_linear(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, gram: Any = None,
                 partial: bool = False, form: str = DEFAULT_FORM) -> RidgeSolution:
    r"""Solve the linear ridge regression system (same pencil, :math:`K = I`; only :math:`\theta = \|\mu\|^2` enters).

    Parameters, ``partial`` and ``form`` as in :func:`solve_attention`.
    """
    from .derive import symbols as S

    check_form(form)
    _, geometry_params = gram_parameters(geometry, gram)
    params = {S.c: _ratio(c), S.gamma: _ridge(gamma), S.theta: geometry_params[S.theta]}
    return ridge_solution(solve_in_form("linear", 1, params, form, partial), partial)


def attention_error(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                    gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                    partial: bool = False, form: str = DEFAULT_FORM) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{attn}(\gamma)` (parameters as in :func:`solve_attention`).

    Returns an array of the broadcast shape; with ``partial=True`` a masked array, masked (NaN
    underneath) where the solver failed: ``solve_attention(..., partial=True).failures`` says why.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(attention_error("tanh(x)", c=1.0, gamma=[0.01, 0.1, 1.0]), 3)
    array([0.167, 0.453, 0.743])
    >>> G = np.diag([1.0, 0.5, 0.5, 0.5, 0.5])            # rank 2: mu, w_K^(1), w_K^(2), w_Q^(1), w_Q^(2)
    >>> attention_error("tanh(x)", c=1.0, gamma=0.1, gram=G).shape
    ()
    >>> attention_error("erf(s*x)", c=1.0, gamma=0.1, params={"s": [0.5, 1.0, 2.0]}).shape
    (3,)
    >>> attention_error("tanh(x)", c=1.0, gamma=[1e-10, 0.1], partial=True, form="quadrature").round(3)
    masked_array(data=[--, 0.453],
                 mask=[ True, False],
           fill_value=nan)
    """
    return solve_attention(f, c, gamma, geometry, d, gram, params, partial, form).error


def linear_error(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, gram: Any = None,
                 partial: bool = False, form: str = DEFAULT_FORM) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{lin}(\gamma)` (Marchenko--Pastur plus the rank-one signal).

    ``partial`` as in :func:`attention_error`.

    Examples
    --------
    >>> round(float(linear_error(c=1.0, gamma=1.0)), 6)   # noise only: 1/sqrt(5)
    0.447214
    """
    return solve_linear(c, gamma, geometry, gram, partial, form).error


def solve_kernel_ridge(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                       gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                       partial: bool = False, form: str = DEFAULT_FORM) -> RidgeSolution:
    r"""Solve kernel ridge regression on :math:`K` alone (:func:`symrmt.derive.kernel_ridge_system`).

    :math:`\Phi = y^\top (K^\top K + \gamma)^{-1} y/n` and
    :math:`E_\mathrm{kernel} = \frac{\gamma^2}{n} y^\top (K^\top K + \gamma)^{-2} y`; parameters as in
    :func:`solve_attention`, ``partial`` and ``form`` included.
    """
    check_form(form)
    rank, values = kernel_parameters(f, c, gamma, geometry, d, gram, params)
    return ridge_solution(solve_in_form("kernel_ridge", rank, values, form, partial), partial)


def kernel_ridge_error(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                       gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                       partial: bool = False, form: str = DEFAULT_FORM) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{kernel}(\gamma)`, the ridge :math:`y \approx K^\top w` on :math:`K`.

    In :math:`[0, 1]`, increasing to 1 as :math:`\gamma \to \infty` (docs/architecture.md; the Monte Carlo is
    :func:`symrmt.simulation.simulate_kernel_ridge`). Parameters as in :func:`solve_attention`.

    Examples
    --------
    >>> np.round(kernel_ridge_error("tanh(x)", c=1.0, gamma=[0.1, 1.0]), 3)
    array([0.242, 0.646])
    """
    return solve_kernel_ridge(f, c, gamma, geometry, d, gram, params, partial, form).error


#: The ridge ladder of the ridgeless limit: half-decade steps from 1e-2 down to 1e-9 (the points the
#: quadrature cannot resolve, e.g. below about 3e-9 at c = 1, are left out).
RIDGELESS_GAMMAS = 10.0 ** -np.arange(2.0, 9.01, 0.5)
#: Differences of E between two steps of the ladder below this are at the level of the solver's accuracy
#: (about 1e-10 on E), not the approach to the limit, and do not measure its rate.
RIDGELESS_SIGNIFICANT = 1e-9


@dataclass(frozen=True)
class RidgelessLimit:
    r"""The ridgeless limit and how it is approached: :math:`E(\gamma) \approx E(0^+) + C\gamma^\alpha`.

    Attributes
    ----------
    limit : float
        :math:`E(0^+)`; ``float(result)`` is this number.
    exponent : float
        :math:`\alpha`, measured between the three smallest :math:`\gamma` of the ladder where
        :math:`E` still moves (see :func:`ridgeless_error` for the values the theory predicts).
    coefficient : float
        :math:`C`.
    gamma, error : numpy.ndarray
        The ladder of :math:`\gamma` down to where :math:`E` stops approaching the limit measurably,
        and :math:`E` there; the exponent is measured at its last three points.
    """

    limit: float
    exponent: float
    coefficient: float
    gamma: np.ndarray
    error: np.ndarray

    def __float__(self) -> float:
        return self.limit

    def __str__(self) -> str:
        return (f"E(0+) = {self.limit:.6g}; E(gamma) - E(0+) ~ {self.coefficient:.3g} gamma^{self.exponent:.3f} "
                f"(measured at gamma = {self.gamma[-1]:.2g})")


def ridgeless_error(f, c: float, geometry: Geometry | None = None, d: float = 0.0, kind: str = "attention",
                    tolerance: float = 1e-5, gram: Any = None,
                    params: Mapping[str, float] | None = None, form: str = DEFAULT_FORM) -> RidgelessLimit:
    r"""The ridgeless limit :math:`\lim_{\gamma \to 0^+} E(\gamma)` and the rate at which it is approached.

    :math:`E(\gamma) = \gamma^2 \int \mathrm d\mu_y(\lambda)/(\lambda + \gamma)^2`, with
    :math:`\mu_y` the spectral measure of :math:`K^\top C K` seen by :math:`y` (its mass is
    :math:`\|y\|^2/n = 1`). :math:`E` increases with :math:`\gamma`, so the limit always exists:
    it is the mass :math:`\mu_y(\{0\})`, the share of :math:`y` in the null space of
    :math:`K^\top C K`, and a density :math:`\propto \lambda^\beta` of :math:`\mu_y` at 0 gives
    :math:`E(\gamma) - E(0^+) \propto \gamma^{1+\beta}` (:math:`\gamma^2` when the spectrum has a
    gap at 0). Hence (docs/theory.md, "Ridgeless limit"):

    * :math:`c < 1`: :math:`C = X^\top X/n` has rank :math:`p < n`, the limit is positive
      (:math:`1 - c` without signal), and it is approached like :math:`\gamma^2`;
    * :math:`c \ge 1`: :math:`K^\top C K` has no null space (:math:`C` has full rank and the
      Gaussian equivalent of :math:`K` has no atom), so the limit is 0, approached like
      :math:`\sqrt\gamma` when the spectrum of :math:`K` reaches 0 (:math:`c > 1`) or :math:`C`'s
      does (the hard edge at :math:`c = 1`), like :math:`\gamma^{1/3}` when both do (a product of
      two such matrices, as for two Ginibre factors), and like :math:`\gamma^2` when neither does.

    The theory is solved on :data:`RIDGELESS_GAMMAS`; the exponent and coefficient come from
    the three smallest :math:`\gamma` where :math:`E` still approaches its limit measurably
    (steps above :data:`RIDGELESS_SIGNIFICANT`, each smaller than the one before), and for :math:`c < 1` the limit
    is their Aitken extrapolation (exact for :math:`E_0 + C\gamma^\alpha`), which must agree with
    that of the three points before within ``tolerance``.

    Returns
    -------
    RidgelessLimit
        ``limit``, ``exponent``, ``coefficient`` and the ladder.

    Raises
    ------
    ConvergenceError
        Fewer than three :math:`\gamma` of the ladder could be solved (e.g. :math:`|d|` so large that
        the quadrature needs :math:`\gamma \gtrsim 10^{-6} d^2`), or for :math:`c < 1` the
        extrapolations disagree by more than ``tolerance``.

    ``params`` gives one value per symbolic parameter of f, as in :func:`attention_error`; ``form`` as there.

    Examples
    --------
    >>> r = ridgeless_error("tanh(x)", 0.5)          # noise only: the null space holds 1 - c of y
    >>> round(r.limit, 6), round(r.exponent, 2)
    (0.5, 2.0)
    >>> r = ridgeless_error("tanh(x)", 1.0, kind="linear")   # E_lin = sqrt(gamma)/2 + O(gamma) at c = 1
    >>> r.limit, round(r.exponent, 3), round(r.coefficient, 3)
    (0.0, 0.5, 0.5)
    """
    c = within("c", positive_scalar("c", c), *C_RANGE, RANGE_HINT)
    kind = choice("kind", kind, ("attention", "linear"))
    tolerance = within("tolerance", positive_scalar("tolerance", tolerance), 0.0, 1.0, "(E lies in [0, 1])")
    if kind == "attention":
        values = attention_error(f, c, RIDGELESS_GAMMAS, geometry, d, gram, params, partial=True, form=form)
    else:
        values = linear_error(c, RIDGELESS_GAMMAS, geometry, gram, partial=True, form=form)
    gamma, error = _approach(values)
    last = error.size - 1
    if last < 2:
        raise ConvergenceError(f"the ridgeless limit needs E at three or more gamma of the ladder "
                               f"{RIDGELESS_GAMMAS[0]:g}..{RIDGELESS_GAMMAS[-1]:g} where it still moves towards "
                               f"its limit; only {gamma.tolist()} (values {np.round(error, 8).tolist()}).")
    limit, exponent, coefficient = _aitken(gamma[-3:], error[-3:])
    if c < 1:
        limit = _settled_limit(gamma, error, last, limit, tolerance)
    else:
        limit = 0.0                                  # no null space: derived, not extrapolated
        coefficient = float(error[last] / gamma[last] ** exponent)
    return RidgelessLimit(limit, exponent, coefficient, gamma, error)


def _approach(values: np.ma.MaskedArray) -> tuple[np.ndarray, np.ndarray]:
    """The ladder down to where E stops approaching its limit measurably.

    That is where a point could not be solved, or where the step of E is no longer positive,
    above :data:`RIDGELESS_SIGNIFICANT` and smaller than the step before (the solver's accuracy).
    """
    failed = np.ma.getmaskarray(values)
    stop = int(np.argmax(failed)) if failed.any() else failed.size
    error = np.asarray(values[:stop], float)
    steps = error[:-1] - error[1:]
    measurable = steps > RIDGELESS_SIGNIFICANT
    measurable[1:] &= steps[1:] < steps[:-1]
    count = int(np.argmin(measurable)) if not measurable.all() else measurable.size
    return RIDGELESS_GAMMAS[:count + 1], error[:count + 1]


def _aitken(gamma: np.ndarray, error: np.ndarray) -> tuple[float, float, float]:
    r"""``(E_0, alpha, C)`` of :math:`E = E_0 + C\gamma^\alpha` through three points of a geometric ladder."""
    step = np.log(gamma[1] / gamma[0])
    first, second = error[0] - error[1], error[1] - error[2]     # both > RIDGELESS_SIGNIFICANT
    exponent = float(np.log(second / first) / step)
    limit = float(error[2] - second**2 / (first - second))
    coefficient = float((error[2] - limit) / gamma[2] ** exponent)
    return limit, exponent, coefficient


def _settled_limit(gamma: np.ndarray, error: np.ndarray, last: int, limit: float, tolerance: float) -> float:
    """The extrapolated limit for c < 1, checked against the extrapolation one step up the ladder."""
    if last >= 3:
        previous = _aitken(gamma[last - 3: last], error[last - 3: last])[0]
        if abs(previous - limit) > tolerance:
            raise ConvergenceError(
                f"the ridgeless limit did not settle: extrapolations {previous:.8g} and {limit:.8g} from "
                f"gamma down to {gamma[last - 1]:.2g} and {gamma[last]:.2g} differ by more than {tolerance:g}.")
    return float(np.clip(limit, 0.0, 1.0))


#: The largest rank :func:`latex` prints: the system grows like r^2 (rank 64: about 1 MB of LaTeX, 3 s to
#: build); beyond it the text is too long to read and to build.
MAX_RANK = 64
#: The most significant digits :func:`latex` prints: a float64 holds 17.
MAX_DIGITS = 17


def latex(f=None, kind: str = "attention", digits: int = 6, rank: int = 1, center: bool = False,
          params: Mapping[str, float] | None = None, numeric: bool = False, document: bool = False,
          form: str = "quadrature") -> str:
    r"""The derived system of ``kind`` as LaTeX, with f's Hermite data when given.

    Without ``document``: ``aligned`` blocks separated by blank lines (KaTeX strict mode and
    MathJax render them). With ``document``: a complete LaTeX document, every equation numbered
    and labelled (``attention:t11``, ...), that ``pdflatex`` compiles.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or None
        The nonlinearity: :math:`a_1` is put in (exactly when a closed form exists), and
        :math:`b^2 = \nu - a_1^2` stays one symbol, defined with f, :math:`a_1` and :math:`\nu` in
        the "where" block. Linear regression does not depend on f (a given f is ignored).
    kind : {"attention", "linear", "gram_density", "kernel_density", "kernel_ridge"}
    digits : int
        Significant digits of the numbers that f's data put in, 1..:data:`MAX_DIGITS`.
    rank : int
        Rank of the attention weights (attention, kernel ridge), 1..:data:`MAX_RANK`.
    center : bool
        Subtract :math:`a_0` from a formula first.
    params : dict, optional
        One value per symbolic parameter of f (``{"s": 0.5}``): the system is printed with the
        Hermite data at that point. Without it, the system of an f with parameters (the names
        other than x, as in ``"tanh(s*x)"``) is printed in them, with :math:`a_1(s)`, :math:`\nu(s)`
        in closed form where one exists and as named functions of the parameters otherwise. A
        parameter that takes the name of a vector of the system renames the vector
        (:math:`s = Z^\top\mu` becomes :math:`z_\mu`); one that prints like a scalar of the system
        is printed with a tilde.
    numeric : bool
        Evaluate the closed forms of f's data to ``digits`` significant digits.
    document : bool
        Return a complete, compilable LaTeX document instead of fragments.
    form : {"quadrature", "algebraic", "auto"}
        The form printed: with its spectral averages :math:`\mathbb E_\lambda[\cdot]` (the default), or in
        closed form (``"algebraic"``, also ``"auto"``: the form ``form="auto"`` solves); for an f with
        :math:`a_1 = 0`, the algebraic form derived with :math:`a_1 = 0`.

    Examples
    --------
    >>> text = latex("erf(x)")
    >>> r"\operatorname{asin}" in text and r"\begin{aligned}" in text
    True
    >>> r"\documentclass" in latex("erf(x)", document=True)
    True
    """
    from .derive.latex import system_document, system_latex
    from .derive.registry import KINDS, printed_hermite, system_for
    from .nonlinearity import HermiteCoefficients, hermite
    from .nonlinearity.parametric import named_values

    from .derive import symbols as S

    kind = choice("kind", kind, KINDS)
    digits = within("digits", integer("digits", digits, 1), 1, MAX_DIGITS, f"(a float64 holds {MAX_DIGITS})")
    rank = within("rank", integer("rank", rank, 1), 1, MAX_RANK, "(the printed system grows like r^2)")
    printed = "quadrature" if check_form(form) == "quadrature" else "algebraic"
    substitution, given, symbols = None, [], ()
    if f is not None and kind != "linear":
        h = f if isinstance(f, HermiteCoefficients) else hermite(f, center=center)
        if params:
            h = h.at(**named_values(params, [s.name for s in h.parameters], h.f))
        h.require_centered()
        substitution, given = printed_hermite(h, digits if numeric else None)
        symbols = tuple(h.parameters or ())
    # An f with a_1 = 0 has its own algebraic form (the general one divides by a_1).
    zero = printed == "algebraic" and substitution is not None and substitution.get(S.a1) == 0
    system = system_for(kind, rank, printed, without_linear_part=zero)
    if document:
        return system_document(system, substitution, digits, given=given, parameters=symbols)
    return system_latex(system, substitution, digits, given=given, parameters=symbols)
