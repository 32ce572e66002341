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

from dataclasses import replace
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from ..errors import ConvergenceError
from ..geometry import Geometry
from ..models import DENSITIES
from ..models.binding import MAX_ARGUMENT
from ..solve import PointFailure
from ..solve.failures import failure_message
from .. import validate
from ..validate import choice
from .forms import DEFAULT_FORM, check_form, solve_in_form
from .ridge import masked

__all__ = ["SpectralDensity", "spectral_density", "cauchy_smoothed", "ATOM_ETAS", "MAX_ARGUMENT"]

#: Why the Gram density at x = 0, eta = 0 has no value: the reason given for that point when it fails (the
#: solver's own reason, a stalled continuation, would say "report this case").
LOWER_END = ("the lower end of the spectrum of the positive semi-definite Gram matrix, where its density is a point "
             "mass (rank p < n) or unbounded (a hard edge); evaluate at x > 0 or give eta > 0")

#: The atom at 0 is lim eta Im m(i eta) = a, extrapolated from these eta (a decade apart) by Aitken's
#: delta-squared, exact for a + C eta^alpha with any alpha > 0 (a density regular at 0 gives alpha = 1,
#: a hard edge x^(-1/2) gives 1/2, the two edges meeting at c = 1 about 1/3). Masses below
#: ATOM_TOLERANCE, the accuracy of the extrapolation, are reported as 0.
ATOM_ETAS = (1e-5, 1e-6, 1e-7)
ATOM_TOLERANCE = 1e-3
#: Below this the differences of eta Im m(i eta) are round-off: the last value is the limit (Aitken's
#: formula would divide round-off by round-off).
ATOM_ROUNDOFF = 1e-11


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
    failed : numpy.ndarray of bool
        The points that could not be solved (only with ``partial=True``: ``density`` and
        ``stieltjes`` are then masked arrays, masked there).
    failures : tuple of PointFailure
        Where and why.

    Examples
    --------
    >>> import numpy as np, symrmt
    >>> rho = symrmt.spectral_density("tanh(x)", c=0.5, x=[0.5, 1.0, 2.0])
    >>> np.round(rho.density, 4).tolist(), rho.atom        # an atom 1 - c at 0: K^T X^T X K/n has rank p
    ([0.0932, 0.052, 0.0283], 0.5)
    """

    def __init__(self, x, density, eta, matrix, stieltjes, base, form: str = DEFAULT_FORM, failed=None,
                 failures: tuple[PointFailure, ...] = ()) -> None:
        self.x, self.density, self.eta, self.matrix, self.stieltjes = x, density, eta, matrix, stieltjes
        self._base, self._form = base, form
        self.failed = np.zeros(np.shape(x), bool) if failed is None else failed
        self.failures = failures

    @cached_property
    def atom(self) -> float:
        return _atom(self.matrix, self._base, self._form)

    def as_dict(self) -> dict:
        """JSON-ready: ``x``, ``density`` (null where failed), ``eta``, ``matrix``, ``atom`` and ``failed``.

        ``failed`` lists ``{"x": ..., "reason": ...}`` for each point that could not be solved.
        """
        return {"x": self.x.tolist(), "density": np.ma.masked_array(self.density, self.failed).tolist(),
                "eta": self.eta, "matrix": self.matrix, "atom": self.atom,
                "failed": [{"x": float(self.x[f.index]), "reason": f.reason} for f in self.failures]}

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
                     params: Mapping[str, float] | None = None, partial: bool = False,
                     form: str = DEFAULT_FORM) -> SpectralDensity:
    r"""Predicted eigenvalue density of :math:`K^\top X^\top X K/n` (``"gram"``) or of :math:`K` (``"kernel"``).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, ``(a_1, nu)`` or dict
        The nonlinearity (centered), or its Hermite data.
    c : float
        :math:`p/n`, in :data:`~symrmt.validate.C_RANGE`.
    x : float or array_like
        Where to evaluate: a number or a 1-d list of real numbers, :math:`|x| \le` :data:`MAX_ARGUMENT`.
    eta : float
        :math:`0 \le \eta \le` :data:`MAX_ARGUMENT`: 0 gives the density itself, :math:`\eta > 0` the
        measure smoothed by the Cauchy kernel of width :math:`\eta`.
    matrix : {"gram", "kernel"}
    d : float
        The diagonal :math:`K_{ii}`, :math:`|d| \le` :data:`~symrmt.validate.MAX_DIAGONAL`.
    geometry, gram : optional
        As in :func:`symrmt.theory.attention_error`; the low-rank part moves only :math:`O(1)`
        outlying eigenvalues, so the bulk does not depend on it, but ``"kernel"`` refuses
        weights that make :math:`K` asymmetric.
    params : dict, optional
        One value per symbolic parameter of f, e.g. ``{"s": 0.5}`` for ``"tanh(s*x)"``.
    partial : bool
        As in :func:`symrmt.theory.solve_attention`: False raises
        :class:`~symrmt.errors.ConvergenceError` when some :math:`x` cannot be solved (for
        instance :math:`x = 0` with :math:`\eta = 0`, where the Gram matrix's density is
        infinite); True returns the others, ``density`` and ``stieltjes`` masked at the failed
        points, with ``failed`` and ``failures``.
    form : {"auto", "algebraic", "quadrature"}
        Which form of the density system solves it (:mod:`symrmt.theory.forms`).

    Returns
    -------
    SpectralDensity
        ``x``, ``density`` (:math:`\frac1\pi\operatorname{Im} m(x + i\eta)`, one value per point of ``x``), the
        Stieltjes transform ``stieltjes``, the mass ``atom`` at 0, and with ``partial=True`` ``failed`` and
        ``failures``.

    Raises
    ------
    ParameterError
        A parameter of the wrong type or outside its range (:math:`10^{-6} \le c \le 10^{6}`,
        :math:`|x|, \eta \le 10^{6}`, :math:`|d| \le 100`), or ``"kernel"`` with weights that make :math:`K`
        asymmetric.
    ConvergenceError
        Without ``partial``, when some point cannot be solved.

    See Also
    --------
    symrmt.simulate_spectrum : The eigenvalues of the finite matrices, to compare with.
    symrmt.attention_error : The interpolation error, made of the same resolvent.

    Examples
    --------
    >>> rho = spectral_density("x**3 - 3*x", c=2.0, x=[0.0], matrix="kernel")   # a_1 = 0: a semicircle
    >>> round(float(rho.density[0]), 6), rho.atom          # radius 2 sqrt(nu / c) = 2 sqrt(3)
    (0.183776, 0.0)
    >>> round(spectral_density("tanh(x)", c=0.5, x=[1.0]).atom, 6)     # rank p < n: mass 1 - c at 0
    0.5
    """
    from ..derive import symbols as S  # heavy: SymPy
    from ..derive.density import DENSITY, STIELTJES  # heavy: SymPy

    check_form(form)
    partial = validate.boolean("partial", partial)      # solved with partial=True below, so checked here
    model = DENSITIES[choice("matrix", matrix, tuple(DENSITIES))]
    _, parameters = model.bind(f=f, c=c, x=x, eta=eta, d=d, geometry=geometry, gram=gram, params=params,
                                     matrix=matrix)
    base = {k: float(parameters[k][0]) for k in (S.c, S.a1, S.b, S.d)}
    x, eta = parameters[S.x], float(parameters[S.eta][0])
    result = solve_in_form(model, 1, parameters, form, partial=True)
    failures = tuple(replace(f, reason=LOWER_END) if matrix == "gram" and eta == 0 and f.parameters.get("x") == 0
                     else f for f in result.failures)
    if failures and not partial:
        raise ConvergenceError(failure_message(model.system_summary(1).name, failures, result.failed.size), failures)
    density, stieltjes = np.asarray(result[DENSITY], float), np.asarray(result[STIELTJES])
    if partial:
        density, stieltjes = masked(density, result.failed), masked(stieltjes, result.failed)
    return SpectralDensity(x, density, eta, matrix, stieltjes, base, form, result.failed, failures)


def _atom(matrix: str, base: dict, form: str) -> float:
    r""":math:`\lim_{\eta \to 0^+} \eta \operatorname{Im} m(i\eta)`, extrapolated from :data:`ATOM_ETAS`."""
    from ..derive import symbols as S  # heavy: SymPy
    from ..derive.density import STIELTJES  # heavy: SymPy

    etas = np.array(ATOM_ETAS)
    e1, e2, e3 = etas * np.imag(solve_in_form(DENSITIES[matrix], 1, {**base, S.x: 0.0, S.eta: etas}, form)[STIELTJES])
    last, before = e3 - e2, e2 - e1
    converged = abs(last) <= ATOM_ROUNDOFF or abs(last) >= abs(before)
    atom = e3 if converged else e3 - last**2 / (last - before)       # Aitken, written without cancellation
    if not np.isfinite(atom) or atom < -ATOM_TOLERANCE or atom > 1 + ATOM_TOLERANCE:
        raise ConvergenceError(f"the atom at 0 did not settle: eta Im m(i eta) = {[e1, e2, e3]} at eta = "
                               f"{etas.tolist()}.")
    # Rounded to 1e-12: the last digits of eta Im m(i eta) are round-off (1 - c comes out 0.5 + 1e-15).
    return 0.0 if atom < ATOM_TOLERANCE else float(min(round(atom, 12), 1.0))
