r"""Eigenvalue densities of the attention Gram matrix and of the kernel matrix, from the derived resolvents.

.. math::

    \rho_\eta(x) = \frac1\pi \operatorname{Im} m(x + i\eta), \qquad
    m(z) = \frac1n \operatorname{tr}(G - z)^{-1},

for :math:`G = K^\top X^\top X K/n` (``matrix="gram"``) or :math:`G = K` (``matrix="kernel"``,
only where :math:`K` is symmetric), with :math:`m` from :func:`symrmt.derive.density.density_system`
solved by the same engine as the interpolation error. With :math:`\eta > 0` this is the whole
spectral measure, atoms included, smoothed by the Cauchy kernel
:math:`\eta/(\pi((x - \lambda)^2 + \eta^2))`, which a simulation reproduces exactly from its
eigenvalues; with :math:`\eta = 0` it is the density of the absolutely continuous part, which
integrates to :math:`1 - \text{atom}`.
"""
from __future__ import annotations

from functools import cached_property
from typing import Any, Mapping

import numpy as np

from .errors import ConvergenceError, ParameterError
from .geometry import Geometry, check_symmetric_kernel, resolve_gram
from .solve import CompiledSystem, solve
from .theory import _hermite_arrays, _real

__all__ = ["SpectralDensity", "spectral_density", "cauchy_smoothed", "ATOM_ETAS"]

#: The atom at 0 is lim eta Im m(i eta) = a, extrapolated from these eta (a decade apart) by Aitken's
#: delta-squared, exact for a + C eta^alpha with any alpha > 0 (a density regular at 0 gives alpha = 1,
#: a hard edge x^(-1/2) gives 1/2, the two edges meeting at c = 1 about 1/3). Masses below
#: ATOM_TOLERANCE, the accuracy of the extrapolation, are reported as 0.
ATOM_ETAS = (1e-5, 1e-6, 1e-7)
ATOM_TOLERANCE = 1e-3


class SpectralDensity:
    r"""A density curve: ``density[i]`` :math:`= \frac1\pi\operatorname{Im} m(x_i + i\eta)`.

    Attributes
    ----------
    x, density : numpy.ndarray
    eta : float
    matrix : str
    stieltjes : numpy.ndarray
        :math:`m(x + i\eta)` itself.
    atom : float
        The mass of the spectral measure at 0, :math:`\lim_{\eta\to0^+}\eta\operatorname{Im} m(i\eta)`
        (computed on first access: three more solves near 0).
    """

    def __init__(self, x, density, eta, matrix, stieltjes, system, base) -> None:
        self.x, self.density, self.eta, self.matrix, self.stieltjes = x, density, eta, matrix, stieltjes
        self._system, self._base = system, base

    @cached_property
    def atom(self) -> float:
        return _atom(self._system, self._base)

    def as_dict(self) -> dict:
        """JSON-ready: ``x``, ``density``, ``eta``, ``matrix``, ``atom``."""
        return {"x": self.x.tolist(), "density": self.density.tolist(), "eta": self.eta, "matrix": self.matrix,
                "atom": self.atom}

    def __repr__(self) -> str:
        return f"SpectralDensity(matrix={self.matrix!r}, eta={self.eta}, {self.x.size} points)"


def cauchy_smoothed(eigenvalues: np.ndarray, x: np.ndarray, eta: float) -> np.ndarray:
    r"""The empirical spectral measure smoothed like the theory: :math:`\frac1N\sum_i \frac{\eta/\pi}{(x - \lambda_i)^2 + \eta^2}`."""
    eigenvalues, x = np.asarray(eigenvalues, float).ravel(), np.asarray(x, float)
    out = np.zeros(x.shape)
    for start in range(0, eigenvalues.size, 4096):         # bounded temporaries
        lam = eigenvalues[start:start + 4096]
        out += (eta / np.pi / ((x[..., None] - lam) ** 2 + eta**2)).sum(-1)
    return out / eigenvalues.size


def spectral_density(f, c: float, x: Any, eta: float = 0.0, matrix: str = "gram", d: float = 0.0,
                     geometry: Geometry | None = None, gram: Any = None,
                     params: Mapping[str, float] | None = None) -> SpectralDensity:
    r"""Predicted eigenvalue density of :math:`K^\top X^\top X K/n` (``"gram"``) or of :math:`K` (``"kernel"``).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or dict
        The nonlinearity (centered), or its Hermite data.
    c : float
        :math:`p/n > 0`.
    x : float or array_like
        Where to evaluate, real.
    eta : float
        :math:`\eta \ge 0`: 0 gives the density itself, :math:`\eta > 0` the measure smoothed
        by the Cauchy kernel of width :math:`\eta`.
    matrix : {"gram", "kernel"}
    d : float
        The diagonal :math:`K_{ii}`.
    geometry, gram : optional
        As in :func:`symrmt.theory.attention_error`; the low-rank part moves only :math:`O(1)`
        outlying eigenvalues, so the bulk does not depend on it, but ``"kernel"`` refuses
        weights that make :math:`K` asymmetric.
    params : dict, optional
        One value per symbolic parameter of f, e.g. ``{"s": 0.5}`` for ``"tanh(s*x)"``.

    Examples
    --------
    >>> rho = spectral_density("x**3 - 3*x", c=2.0, x=[0.0], matrix="kernel")   # a_1 = 0: a semicircle
    >>> round(float(rho.density[0]), 6), rho.atom          # radius 2 sqrt(nu / c) = 2 sqrt(3)
    (0.183776, 0.0)
    >>> round(spectral_density("tanh(x)", c=0.5, x=[1.0]).atom, 6)     # rank p < n: mass 1 - c at 0
    0.5
    """
    from .codegen import compile_system
    from .derive import symbols as S
    from .derive.density import DENSITY, MATRICES, STIELTJES, density_system

    if matrix not in MATRICES:
        raise ParameterError(f"matrix = {matrix!r}: use one of {MATRICES}.")
    a1, b = _hermite_arrays(f, params)
    if a1.ndim or b.ndim:
        given = ", ".join(f"{k} {np.shape(v)}" for k, v in (params or {}).items()) or "a_1 and nu"
        raise ParameterError(f"spectral_density takes one nonlinearity at a time: one value per parameter "
                             f"(got the shapes {given}); loop over the values.")
    c, eta, d = _scalar("c", c), _scalar("eta", eta), _scalar("d", d)
    if c <= 0:
        raise ParameterError(f"c = {c}: the ratio p/n must be > 0.")
    if eta < 0:
        raise ParameterError(f"eta = {eta}: the distance to the real axis must be >= 0.")
    x = np.atleast_1d(_real("x", x))
    if x.ndim != 1:
        raise ParameterError(f"x has shape {x.shape}: give a number or a 1-d list of numbers.")
    G = resolve_gram(geometry, gram)
    if matrix == "kernel":
        check_symmetric_kernel(G)
    system = compile_system(density_system(matrix))
    base = {S.c: c, S.a1: float(a1), S.b: float(b), S.d: d}
    result = solve(system, {**base, S.x: x, S.eta: eta})
    return SpectralDensity(x, np.asarray(result[DENSITY], float), eta, matrix, np.asarray(result[STIELTJES]), system,
                           base)


def _scalar(name: str, value) -> float:
    array = _real(name, value)
    if array.ndim:
        raise ParameterError(f"{name} must be a single number for spectral_density.")
    return float(array)


def _atom(system: CompiledSystem, base: dict) -> float:
    r""":math:`\lim_{\eta \to 0^+} \eta \operatorname{Im} m(i\eta)`, extrapolated from :data:`ATOM_ETAS`."""
    from .derive import symbols as S
    from .derive.density import STIELTJES

    etas = np.array(ATOM_ETAS)
    e1, e2, e3 = etas * np.imag(solve(system, {**base, S.x: 0.0, S.eta: etas})[STIELTJES])
    curvature = e1 + e3 - 2 * e2
    atom = e3 if abs(curvature) <= 1e-15 else (e1 * e3 - e2**2) / curvature
    if not np.isfinite(atom) or atom < -ATOM_TOLERANCE or atom > 1 + ATOM_TOLERANCE:
        raise ConvergenceError(f"the atom at 0 did not settle: eta Im m(i eta) = {[e1, e2, e3]} at eta = "
                               f"{etas.tolist()}.")
    return 0.0 if atom < ATOM_TOLERANCE else float(min(atom, 1.0))
