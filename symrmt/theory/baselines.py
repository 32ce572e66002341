r"""The baselines beside attention: linear (ridge) regression on :math:`X` and kernel ridge regression on :math:`K` alone.

.. math::

    E_\mathrm{lin}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{lin}(\gamma),

with :math:`\Phi` given by the derived systems :func:`symrmt.derive.linear_system` and
:func:`symrmt.derive.kernel_ridge.kernel_ridge_system`, solved through :func:`~.solution.solve_model` (the registered
models ``linear`` and ``kernel_ridge``). Parameters broadcast; ``form`` as in :func:`symrmt.theory.ridge.solve_attention`.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..geometry import Geometry
from ..models import KERNEL_RIDGE, LINEAR
from ..models.binding import ArrayLike
from .forms import DEFAULT_FORM
from .solution import RidgeSolution, solve_model

__all__ = ["solve_linear", "linear_error", "solve_kernel_ridge", "kernel_ridge_error"]


def solve_linear(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, gram: Any = None,
                 partial: bool = False, form: str = DEFAULT_FORM) -> RidgeSolution:
    r"""Solve the linear ridge regression system (same pencil, :math:`K = I`; only :math:`\theta = \|\mu\|^2` enters).

    Parameters
    ----------
    c, gamma : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`, and the ridge
        :math:`0 < \gamma \le 10^{12}`; broadcast together.
    geometry : Geometry, optional
        The signal: only its norm :math:`\|\mu\| \le 100` enters (regression has no attention weights).
    gram : array_like or dict, optional
        Instead of ``geometry``: a Gram matrix of :math:`(\mu, \dots)` or the dict of rank-1 entries; only
        :math:`\theta = \|\mu\|^2` is read.
    partial : bool
        False (default): :class:`~symrmt.errors.ConvergenceError` for a point that cannot be solved; True: the
        other points, masked where one failed.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it; the numbers agree to about 1e-9.

    Returns
    -------
    RidgeSolution
        ``error`` (:math:`E_\mathrm{lin}`, the broadcast shape), the other observables, the unknowns and
        residuals.

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, or outside its range.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    linear_error : The error alone.
    solve_attention : The same for nonlinear attention.

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> np.round(symrmt.solve_linear(c=1.0, gamma=[0.1, 1.0]).error, 4).tolist()
    [0.1562, 0.4472]
    """
    return solve_model(LINEAR, form, partial, c=c, gamma=gamma, geometry=geometry, gram=gram)


def linear_error(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, gram: Any = None,
                 partial: bool = False, form: str = DEFAULT_FORM) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{lin}(\gamma)` (Marchenko--Pastur plus the rank-one signal).

    The interpolation error of ridge regression on the tokens :math:`X` themselves, the baseline of
    :func:`attention_error`.

    Parameters
    ----------
    c : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`.
    gamma : array_like
        The ridge, :math:`0 < \gamma \le 10^{12}`.
    geometry : Geometry, optional
        The signal: only its norm :math:`\|\mu\| \le 100` enters.
    gram : array_like or dict, optional
        Instead of ``geometry``: a Gram matrix or dict of rank-1 entries; only :math:`\theta = \|\mu\|^2` is read.
    partial : bool
        False (default): :class:`~symrmt.errors.ConvergenceError` for a point that cannot be solved; True: a masked
        array, masked where one failed.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it; the numbers agree to about 1e-9.

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{lin}` in :math:`[0, 1]`, of the broadcast shape of ``c`` and ``gamma``.

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, or outside its range.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    attention_error : Nonlinear attention on the same data.
    solve_linear : The solution with its unknowns and residuals.

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

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or dict
        The nonlinearity (centred), or its Hermite data.
    c : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`.
    gamma : array_like
        The ridge, :math:`0 < \gamma \le 10^{12}`.
    geometry, gram : optional
        The signal and the weights, as in :func:`attention_error`.
    d : array_like
        The diagonal :math:`K_{ii} = d`, :math:`|d| \le 100`; default 0.
    params : dict, optional
        Values of f's symbolic parameters, arrays that broadcast.
    partial : bool
        False (default): :class:`~symrmt.errors.ConvergenceError` for a point that cannot be solved; True: the other
        points, masked where one failed.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it.

    Returns
    -------
    RidgeSolution
        ``error`` (:math:`E_\mathrm{kernel}`), :math:`\Phi`, the unknowns and their residuals.

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, or outside its range.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    kernel_ridge_error : The error alone.
    solve_attention : The ridge on :math:`XK`.

    Examples
    --------
    >>> import numpy as np
    >>> from symrmt.theory import solve_kernel_ridge
    >>> np.round(solve_kernel_ridge("tanh(x)", c=1.0, gamma=[0.1, 1.0]).error, 4).tolist()
    [0.2417, 0.6459]
    """
    return solve_model(KERNEL_RIDGE, form, partial, f=f, c=c, gamma=gamma, geometry=geometry, d=d, gram=gram,
                       params=params)


def kernel_ridge_error(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                       gram: Any = None, params: Mapping[str, ArrayLike] | None = None,
                       partial: bool = False, form: str = DEFAULT_FORM) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{kernel}(\gamma)`, the ridge :math:`y \approx K^\top w` on :math:`K`.

    In :math:`[0, 1]`, increasing to 1 as :math:`\gamma \to \infty` (docs/architecture.md; the Monte Carlo is
    :func:`symrmt.simulation.simulate_kernel_ridge`).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or dict
        The nonlinearity (centred), or its Hermite data.
    c : array_like
        The ratio :math:`c = p/n`, :math:`10^{-6} \le c \le 10^{6}`.
    gamma : array_like
        The ridge, :math:`0 < \gamma \le 10^{12}`.
    geometry, gram : optional
        The signal and the weights, as in :func:`attention_error`.
    d : array_like
        The diagonal :math:`K_{ii} = d`, :math:`|d| \le 100`; default 0.
    params : dict, optional
        Values of f's symbolic parameters, arrays that broadcast.
    partial : bool
        False (default): :class:`~symrmt.errors.ConvergenceError` for a point that cannot be solved; True: a masked
        array, masked where one failed.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the system solves it.

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{kernel}` in :math:`[0, 1]`, of the broadcast shape of the arguments.

    Raises
    ------
    ParameterError
        A parameter of the wrong type, empty, or outside its range.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    attention_error : The ridge on :math:`XK`, the paper's model.
    symrmt.simulate_kernel_ridge : The Monte Carlo of the same regression.

    Examples
    --------
    >>> np.round(kernel_ridge_error("tanh(x)", c=1.0, gamma=[0.1, 1.0]), 3)
    array([0.242, 0.646])
    """
    return solve_kernel_ridge(f, c, gamma, geometry, d, gram, params, partial, form).error
