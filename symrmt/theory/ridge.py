r"""Deterministic equivalents of attention's ridge error (the entry points of the attention models).

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
``"algebraic"`` or ``"quadrature"`` (the reference); see :mod:`symrmt.theory.forms` and its
:data:`~symrmt.theory.forms.DEFAULT_FORM`.

The baselines (linear regression, kernel ridge) are in :mod:`.baselines`, :class:`RidgeSolution` and
:func:`solve_model` in :mod:`.solution`; both are importable from here as before.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .. import validate
from ..errors import ParameterError
from ..geometry import Geometry
from ..models import ATTENTION, ATTENTION_GENERAL
from ..models.binding import ArrayLike
from .baselines import kernel_ridge_error, linear_error, solve_kernel_ridge, solve_linear
from .forms import DEFAULT_FORM
from .solution import RidgeSolution, masked, ridge_solution, solve_model

__all__ = ["RidgeSolution", "ridge_solution", "solve_model", "masked", "solve_attention", "attention_error", "solve_linear",
           "linear_error", "solve_kernel_ridge", "kernel_ridge_error"]


def solve_attention(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                    gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                    partial: bool = False, form: str = DEFAULT_FORM) -> RidgeSolution:
    r"""Solve the attention system; returns the error, :math:`\Phi`, the unknowns and the residuals.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or ``{"a1": ..., "nu": ...}``
        The nonlinearity (must have :math:`a_0 = 0`), or its Hermite data (arrays broadcast).
    c, gamma : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}` (:data:`~symrmt.validate.C_RANGE`), and the
        ridge :math:`0 < \gamma \le 10^{12}` (:data:`~symrmt.validate.MAX_GAMMA`); broadcast together.
    geometry : Geometry, optional
        Norms (each at most 100) and cosines of :math:`(\mu, w_K, w_Q)` (rank 1); default none: no signal, no
        weights.
    d : array_like
        The diagonal :math:`K_{ii} = d`, :math:`|d| \le 100` (:data:`~symrmt.validate.MAX_DIAGONAL`); default 0.
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
        Which form of the system solves it (:mod:`symrmt.theory.forms`); the numbers agree to about 1e-9.

    Returns
    -------
    RidgeSolution
        ``error`` (:math:`E_\mathrm{attn}`, the broadcast shape of the arguments), the other observables of the
        system by their symbols (:math:`\Phi = y^\top Q y/n` among them), the solved unknowns and their
        residuals; with ``partial=True`` masked arrays and ``failed``, ``failures``.

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, or outside its range.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    attention_error : The error alone, and the theory of any weight matrix.
    solve_linear : The same for linear ridge regression.
    symrmt.hermite : The Hermite data of f.

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> s = symrmt.solve_attention("tanh(x)", c=1.0, gamma=[1e-10, 0.1], form="quadrature", partial=True)
    >>> s.error.mask.tolist(), round(float(s.error[1]), 4), len(s.failures)    # 1e-10: below the quadrature
    ([True, False], 0.4532, 1)
    """
    return solve_model(ATTENTION, form, partial, f=f, c=c, gamma=gamma, geometry=geometry, d=d, gram=gram,
                       params=params)


def attention_error(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                    gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                    partial: bool = False, form: str = DEFAULT_FORM, *, weights: Any = None,
                    mu: ArrayLike | None = None, allow_long: bool = False) -> np.ndarray:
    r"""Deterministic equivalent of the interpolation error :math:`E_\mathrm{attn}(\gamma)` of nonlinear attention.

    :math:`E_\mathrm{attn}(\gamma) = (\gamma^2/n)\, y^\top Q^2 y` for the ridge probe on :math:`X K`, in the limit
    :math:`n, p \to \infty` with :math:`p/n = c`; every argument broadcasts, so that a whole grid is one call.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or ``{"a1": ..., "nu": ...}``
        The nonlinearity (it must have :math:`a_0 = \mathbb E f(\xi) = 0`: ``symrmt.hermite(f, center=True)``
        subtracts it), or its Hermite data (arrays broadcast).
    c : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`.
    gamma : array_like
        The ridge, :math:`0 < \gamma \le 10^{12}`.
    geometry : Geometry, optional
        Norms (each at most 100) and cosines of :math:`(\mu, w_K, w_Q)` (rank-1 weights
        :math:`W_K^\top W_Q = I + w_K w_Q^\top`); default none: no signal, no weights.
    d : array_like
        The diagonal :math:`K_{ii} = d`, :math:`|d| \le 100`; default 0.
    gram : array_like or dict, optional
        Instead of ``geometry``: the Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, shape
        ``(..., 1 + 2r, 1 + 2r)`` (rank-:math:`r` weights), or a dict of the six rank-1 entries
        ``theta, alpha_K, alpha_Q, omega_KK, omega_QQ, omega_KQ``.
    params : dict, optional
        Values of f's symbolic parameters (the names in the formula other than x), arrays that broadcast.
    partial : bool
        False (default): :class:`~symrmt.errors.ConvergenceError` naming a point that cannot be solved; True: a
        masked array, masked (NaN underneath) where the solver failed
        (``solve_attention(..., partial=True).failures`` says why).
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it; the numbers agree to about 1e-9.
    weights : array_like or (array_like, array_like), optional, keyword-only
        Any weight matrix: ``M`` (a real ``(p, p)`` array, scores :math:`x_i^\top M x_j/\sqrt p` with token i the
        key) or ``(W_K, W_Q)`` (:math:`M = W_K^\top W_Q`), solved by
        :func:`symrmt.general.attention_error_general` (the general-M theory of docs/theory.md). Then c and d are
        single numbers and gamma any array, and geometry, gram, params, partial and form are refused (the Gram
        matrix cannot place :math:`\mu` relative to M).
    mu : array_like, optional, keyword-only
        With ``weights``: the signal vector, length p; default none.
    allow_long : bool, keyword-only
        With ``weights``: the time and memory are estimated first (:func:`symrmt.general.cost.check_general_cost`),
        and a run estimated over five minutes is refused unless this is True.

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{attn}` in :math:`[0, 1]`, of the broadcast shape of the arguments (a masked array with
        ``partial=True``).

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, outside its range, or an argument refused with ``weights``.
    ParseError
        A formula f that cannot be read (an unknown function or name).
    NonlinearityError
        An f that is not centred (:math:`a_0 \ne 0`), or whose Hermite data cannot be computed.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    solve_attention : The same solution with :math:`\Phi`, the unknowns and their residuals.
    linear_error : Ridge regression on the same data, the baseline.
    symrmt.simulate : The Monte Carlo of the finite model, to check it against.
    symrmt.hermite : The Hermite data of f, exact where a closed form exists.

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
    allow_long = validate.boolean("allow_long", allow_long)
    if weights is not None:
        return _general_error(f, c, gamma, d, weights, mu, allow_long, geometry=geometry, gram=gram, params=params,
                              partial=partial, form=form)
    if allow_long:
        raise ParameterError("allow_long=True applies to weights= only (the general-M theory's cost check); "
                             "leave it out.")
    if mu is not None:
        raise ParameterError("mu= is the signal vector of weights=M; without weights give the signal as geometry= "
                             "or gram=.")
    return solve_attention(f, c, gamma, geometry, d, gram, params, partial, form).error


def _general_error(f, c: ArrayLike, gamma: ArrayLike, d: ArrayLike, weights: Any, mu: Any, allow_long: bool,
                   **refused) -> np.ndarray:
    """``attention_error(..., weights=M)``: the general-M theory, with the arguments it cannot take refused."""
    given = [name for name, value in refused.items()
             if value is not None and value is not False and not (name == "form" and value == DEFAULT_FORM)]
    if given:
        raise ParameterError(f"weights= cannot be combined with {', '.join(given)}: give the signal as mu= (a vector "
                             "of length p), and f, c, gamma, d only.")
    from ..general.cost import check_general_cost  # heavy: SciPy

    check_general_cost(weights, gamma, validate.boolean("allow_long", allow_long))
    return solve_model(ATTENTION_GENERAL, f=f, c=c, gamma=gamma, weights=weights, mu=mu, d=d).error
