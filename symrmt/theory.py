r"""Deterministic equivalents of the interpolation errors: the public entry points.

.. math::

    E_\mathrm{attn}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{attn}(\gamma),
    \qquad E_\mathrm{lin}(\gamma) \simeq -\gamma^2 \frac{\mathrm d}{\mathrm d\gamma}\Phi_\mathrm{lin}(\gamma),

with :math:`\Phi = y^\top Q y / n` given by the derived system of
:mod:`symrmt.derive` (print it with :func:`symrmt.latex.system_latex`) and
solved by :mod:`symrmt.solve`. Every function here is vectorized: parameters
broadcast against each other (a curve in :math:`\gamma`, a grid in
:math:`(c, \gamma)`, ...).

The symbolic build happens once per process on first use (about a second);
a new nonlinearity only costs its Hermite coefficients, since the system is
derived for general :math:`(a_1, \nu)`.
"""
from __future__ import annotations

from typing import Union

import numpy as np

from .codegen import compile_derivation
from .derive import derive_attention, derive_linear
from .errors import ConvergenceError, SymrmtInputError
from .geometry import Geometry
from .solve import SolveResult, solve

__all__ = ["attention_error", "linear_error", "solve_attention", "solve_linear", "hermite_data", "ridgeless_error"]

ArrayLike = Union[float, np.ndarray, list]


def hermite_data(f) -> tuple[float, float]:
    """``(a_1, nu)`` from a nonlinearity (string, SymPy expression, HermiteCoefficients, or a pair)."""
    if isinstance(f, tuple) and len(f) == 2:
        return float(f[0]), float(f[1])
    if hasattr(f, "a1") and hasattr(f, "nu"):
        return float(f.a1), float(f.nu)
    from .nonlinearity import hermite

    data = hermite(f)
    return data.a1, data.nu


def _positive(name: str, value: ArrayLike) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise SymrmtInputError(f"{name} must be finite and > 0 (got {value!r}).")
    return array


def _geometry_parameters(geometry: Geometry | None, gram: dict | None) -> dict[str, np.ndarray]:
    if gram is not None:
        names = ("theta", "alpha_K", "alpha_Q", "omega_KK", "omega_QQ", "omega_KQ")
        unknown = set(gram) - set(names)
        if unknown:
            raise SymrmtInputError(f"unknown Gram entries {sorted(unknown)}; use {names}.")
        values = {k: np.asarray(gram.get(k, 0.0), float) for k in names}
        _check_gram(values)
        return values
    g = geometry or Geometry()
    return {"theta": g.theta, "alpha_K": g.alpha_k, "alpha_Q": g.alpha_q,
            "omega_KK": g.wk_norm**2, "omega_QQ": g.wq_norm**2, "omega_KQ": g.wk_wq}


def _check_gram(v: dict[str, np.ndarray]) -> None:
    b = np.broadcast_arrays(v["theta"], v["alpha_K"], v["alpha_Q"], v["omega_KK"], v["omega_KQ"], v["omega_QQ"])
    gram = np.stack([np.stack([b[0], b[1], b[2]], -1), np.stack([b[1], b[3], b[4]], -1),
                     np.stack([b[2], b[4], b[5]], -1)], -2)
    if not np.all(np.isfinite(gram)):
        raise SymrmtInputError("Gram entries must be finite.")
    smallest = np.linalg.eigvalsh(gram)[..., 0]
    scale = np.maximum(1.0, np.abs(gram).max(axis=(-1, -2)))
    if np.any(smallest < -1e-10 * scale):
        raise SymrmtInputError("the Gram matrix of (mu, w_K, w_Q) is not positive semi-definite at some point; "
                               "give the inner products of actual vectors.")


def solve_attention(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                    gram: dict | None = None) -> SolveResult:
    r"""Solve the attention system; returns the :class:`~symrmt.solve.SolveResult` (error, :math:`\Phi`, unknowns, residual).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, or ``(a_1, nu)``
        The nonlinearity (must have :math:`a_0 = 0`), or its Hermite data.
    c, gamma : array_like
        :math:`c = p/n > 0` and the ridge :math:`\gamma > 0`; broadcast together.
    geometry : Geometry, optional
        Norms and cosines of :math:`(\mu, w_K, w_Q)`; default none.
    d : array_like
        Diagonal :math:`K_{ii}`.
    gram : dict, optional
        Instead of ``geometry``, arrays of the Gram entries ``theta, alpha_K, alpha_Q,
        omega_KK, omega_QQ, omega_KQ`` (vectorized over alignments).
    """
    a1, nu = hermite_data(f) if not isinstance(f, dict) else (f["a1"], f["nu"])
    a1, nu = np.asarray(a1, float), np.asarray(nu, float)
    b2 = nu - a1**2
    if np.any(b2 < -1e-12 * np.maximum(1, nu)):
        raise SymrmtInputError("need nu >= a_1^2 (nu = E f^2 bounds a_1 = E[xi f] by Cauchy-Schwarz).")
    params = {"c": _positive("c", c), "gamma": _positive("gamma", gamma), "a_1": a1,
              "b": np.sqrt(np.clip(b2, 0, None)), "d": np.asarray(d, float), **_geometry_parameters(geometry, gram)}
    return solve(compile_derivation(derive_attention()), params)


def solve_linear(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None,
                 gram: dict | None = None) -> SolveResult:
    r"""Solve the linear ridge regression system (same pencil, :math:`K = I`)."""
    params = {"c": _positive("c", c), "gamma": _positive("gamma", gamma), "a_1": 0.0, "b": 0.0, "d": 0.0,
              **_geometry_parameters(geometry, gram)}
    return solve(compile_derivation(derive_linear()), params)


def attention_error(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                    gram: dict | None = None) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{attn}(\gamma)`.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(attention_error("tanh(x)", c=1.0, gamma=[0.01, 0.1, 1.0]), 3)
    array([0.167, 0.453, 0.743])
    """
    return solve_attention(f, c, gamma, geometry, d, gram).error


def linear_error(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None,
                 gram: dict | None = None) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_\mathrm{lin}(\gamma)` (Marchenko--Pastur plus the rank-one signal).

    Examples
    --------
    >>> round(float(linear_error(c=1.0, gamma=1.0)), 6)   # noise only: 1/sqrt(5)
    0.447214
    """
    return solve_linear(c, gamma, geometry, gram).error


#: gamma sequence for the ridgeless limit (half-decade steps down to 1e-5).
RIDGELESS_GAMMAS = 10.0 ** -np.arange(2.0, 5.01, 0.5)


def ridgeless_error(f, c: float, geometry: Geometry | None = None, d: float = 0.0, kind: str = "attention",
                    tolerance: float = 1e-5) -> float:
    r"""The ridgeless limit :math:`\lim_{\gamma \to 0^+} E(\gamma)`, when it is reached numerically.

    :math:`E(\gamma) = \frac{\gamma^2}{n} y^\top Q^2 y` tends to the squared norm of
    :math:`y` on the null space of :math:`K^\top C K` (over :math:`n`); for :math:`c < 1`
    that null space has dimension at least :math:`n - p` and the limit is positive.
    The theory is evaluated on :data:`RIDGELESS_GAMMAS` (down to :math:`10^{-5}`); the
    last value is returned when the last two half-decade steps differ by less than
    ``tolerance``. Otherwise :class:`ConvergenceError` says so: for :math:`c \ge 1`,
    :math:`E` typically goes to 0 like :math:`\sqrt\gamma` (the kernel
    :math:`a_1\lambda + \kappa` vanishes inside the spectrum), too slowly to certify.

    Examples
    --------
    >>> round(ridgeless_error("tanh(x)", 0.5), 6)    # noise only: the null space holds 1 - c of y
    0.5
    """
    if kind == "attention":
        values = attention_error(f, c, RIDGELESS_GAMMAS, geometry, d)
    elif kind == "linear":
        values = linear_error(c, RIDGELESS_GAMMAS, geometry)
    else:
        raise SymrmtInputError(f"kind = {kind!r}: use 'attention' or 'linear'.")
    step = abs(values[-1] - values[-2])
    if step > tolerance:
        raise ConvergenceError(
            f"E(gamma) still moves by {step:.2g} between gamma = {RIDGELESS_GAMMAS[-2]:.2g} and "
            f"{RIDGELESS_GAMMAS[-1]:.2g} (values {np.round(values, 6).tolist()}); the ridgeless limit is not "
            "reached at the smallest gamma the quadrature resolves."
        )
    return float(values[-1])
