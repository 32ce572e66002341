r"""Softmax attention's deterministic equivalent: the entrywise system with the exact Hermite data of the exponential.

The scores are those of the entrywise model, :math:`S = X^\top W_{KQ} X/\sqrt p`, with
:math:`S_{ij} = x_i^\top x_j/\sqrt p + (w_K^\top x_i)(w_Q^\top x_j)/\sqrt p` for rank-one weights (token
:math:`i` the key, token :math:`j` the query). Softmax attention normalizes over the keys of each query
:math:`j` (the self-token masked), at temperature :math:`\tau`, so each column sums to one:

.. math::

    K^{\rm sm}_{ij} = \frac{e^{S_{ij}/\tau}}{\sum_{k \ne j} e^{S_{kj}/\tau}} \ (i \ne j), \qquad
    K^{\rm sm}_{jj} = 0, \qquad \sum_{i} K^{\rm sm}_{ij} = 1

(:mod:`symrmt.simulation.softmax`). The transposed orientation, each row normalized
(``normalize="queries"``), has the same deterministic equivalent (docs/theory.md, section 15, with the
finite-n difference of the two). The probe runs on :math:`XK'` with

.. math::

    K' = \sigma_\tau K^{\rm sm}, \qquad \sigma_\tau = \frac{(n - 1)\, e^{1/(2\tau^2)}}{\sqrt p}
    \quad (:func:`softmax_scale`),

because each normalizer concentrates at :math:`(n-1)\,\mathbb E e^{\xi/\tau} = (n-1) e^{1/(2\tau^2)}`:
then :math:`K'_{ij} \approx f(S_{ij})/\sqrt p` with :math:`f(x) = e^{x/\tau}`, the entrywise model.
Its deterministic equivalent is that of the centered
:math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}` (docs/theory.md, section 15), whose Hermite data are
exact (:func:`softmax_hermite`):

.. math::

    a_1 = \mathbb E[\xi e^{\xi/\tau}] = \frac{e^{1/(2\tau^2)}}{\tau}, \qquad
    \nu = \operatorname{Var} e^{\xi/\tau} = e^{2/\tau^2} - e^{1/\tau^2} .

A ridge :math:`\lambda` on the plain softmax features :math:`XK^{\rm sm}` is the ridge
:math:`\gamma = \sigma_\tau^2 \lambda` here: :math:`E^{\rm sm}(\lambda) = E(\sigma_\tau^2 \lambda)`.

Every positive finite :math:`\tau` from :data:`symrmt.validate.MIN_TEMPERATURE` up is computed or refused for a
reason about :math:`\tau`. The system is solved for :math:`f/a_1` at :math:`\gamma/a_1^2`, whose data
:math:`\nu/a_1^2 = \tau^2 (e^{1/\tau^2} - 1)` are computed with ``expm1`` (:func:`softmax_share`): without the
cancellation of :math:`e^{2/\tau^2} - e^{1/\tau^2}`, which at :math:`\tau = 10^6` leaves no digit, and with the
limit 1 (linear attention) as :math:`\tau \to \infty`. The features :math:`XK'` shrink like :math:`a_1 \approx 1/\tau`,
so a ridge :math:`\gamma` acts as :math:`\gamma/a_1^2 \approx \gamma\tau^2` on features of unit scale; beyond
:data:`symrmt.validate.MAX_GAMMA` the point is refused with the largest :math:`\tau` that this :math:`\gamma`
allows (:func:`largest_temperature`), since :math:`E \to 1` there to within :math:`a_1^2/\gamma`.

"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConvergenceError, ParameterError
from ..validate import DOMAINS, beyond_gamma, positive_array
from ..validate import temperature as check_temperature
from ..models import SOFTMAX
from ..models.cli_hooks import FixedF
from .forms import DEFAULT_FORM
from .ridge import RidgeSolution, solve_attention, solve_model

__all__ = ["softmax_hermite", "softmax_share", "softmax_formula", "softmax_error", "solve_softmax",
           "largest_temperature", "SoftmaxData", "softmax_data"]

#: Below this :math:`u = 1/\tau^2` the series of :math:`(e^u - 1)/u` is exact in float64 (its next term, u^3/24,
#: is below 1e-17).
_SERIES_BELOW = 1e-5


def softmax_hermite(temperature: Any) -> tuple[np.ndarray, np.ndarray]:
    r"""``(a_1, nu)`` of :math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}`, exactly (arrays broadcast).

    :math:`a_1 = e^{1/(2\tau^2)}/\tau` (Stein: :math:`\mathbb E f'(\xi)`) and
    :math:`\nu = e^{2/\tau^2} - e^{1/\tau^2}` (:math:`\mathbb E e^{t\xi} = e^{t^2/2}`). These are the closed
    forms :func:`symrmt.nonlinearity.hermite` derives for :math:`e^{\sigma x}` centred at :math:`\sigma = 1/\tau`
    (:func:`symrmt.nonlinearity.scaled.scaled_data`; tests/test_softmax.py holds them equal), written here with
    ``expm1``: the engine's float64 difference :math:`e^{2u} - e^u` loses :math:`\log_{10}\tau^2` digits, all of
    them (a "constant" f) from :math:`\tau \approx 10^8`, where this form keeps every digit.

    >>> a1, nu = softmax_hermite(1.0)
    >>> bool(np.isclose(a1, np.exp(0.5))), bool(np.isclose(nu, np.e**2 - np.e))
    (True, True)
    """
    return _hermite(check_temperature(temperature, array=True))


def _hermite(tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`softmax_hermite` of a temperature read already."""
    u = (1.0 / tau) ** 2                       # 1/tau first: tau**2 overflows from tau ~ 1.3e154
    return np.exp(0.5 * u) / tau, np.exp(u) * np.expm1(u)      # e^{2u} - e^u without cancellation


def softmax_share(temperature: Any) -> np.ndarray:
    r""":math:`\nu/a_1^2 = \tau^2 (e^{1/\tau^2} - 1) = (e^u - 1)/u`, :math:`u = 1/\tau^2`: at least 1, and 1 in the
    limit :math:`\tau \to \infty` (the data of :math:`f/a_1`, which the theory solves).

    >>> bool(np.isclose(softmax_share(1.0), np.e - 1, rtol=1e-15, atol=0))
    True
    >>> float(softmax_share(1e6)), float(softmax_share(1e200))
    (1.0000000000005, 1.0)
    """
    return _share(check_temperature(temperature, array=True))


def _share(tau: np.ndarray) -> np.ndarray:
    """:func:`softmax_share` of a temperature read already."""
    u = (1.0 / tau) ** 2
    small = u < _SERIES_BELOW
    with np.errstate(over="ignore"):
        exact = np.expm1(np.where(small, 1.0, u)) / np.where(small, 1.0, u)
    return np.where(small, 1.0 + u / 2 + u**2 / 6, exact)


def largest_temperature(gamma: float) -> float:
    r"""The largest :math:`\tau` at which :math:`\gamma/a_1^2 = \gamma\tau^2 e^{-1/\tau^2}` is at most
    :data:`symrmt.validate.MAX_GAMMA`: with :math:`v = 1/\tau^2`, :math:`v e^v = \gamma/\Gamma`, so
    :math:`\tau = 1/\sqrt{W(\gamma/\Gamma)}` (Lambert's W, :math:`\Gamma` the largest ridge).

    >>> round(largest_temperature(1.0) / 1e6, 6)
    1.0
    """
    from scipy.special import lambertw  # heavy: SciPy

    return float(1.0 / np.sqrt(lambertw(gamma / DOMAINS["gamma"][1]).real))


def softmax_formula(temperature: float) -> str:
    """The centered f of the softmax at ``temperature``, as a formula in x (for labels and ``symrmt.hermite``).

    >>> softmax_formula(0.5)
    'exp(x/0.5) - exp(1/(2*0.5**2))'
    """
    return _formula(check_temperature(temperature))


def _formula(tau: float) -> str:
    """:func:`softmax_formula` of a temperature read already."""
    text = repr(float(tau))
    return f"exp(x/{text}) - exp(1/(2*{text}**2))"


@dataclass(frozen=True)
class SoftmaxData(FixedF):
    """The f softmax attention fixes at temperature :math:`\\tau` (its centred exponential) and its exact Hermite data,
    as the commands print it (the data hook of the ``softmax`` model on the command line, :mod:`symrmt.models.cli_hooks`).

    >>> SoftmaxData.of(0.5).describe()
    'softmax attention, T = 0.5 (theory: f = exp(x/0.5) - exp(1/(2*0.5**2)))'
    """

    @property
    def temperature(self) -> float:
        """:math:`\\tau`."""
        return float(self.options["temperature"])

    @classmethod
    def of(cls, temperature: Any) -> SoftmaxData:
        """The data at ``temperature`` (read once, :func:`symrmt.validate.temperature`)."""
        tau = check_temperature(temperature)
        a1, nu = _hermite(np.asarray(tau))
        return cls(_formula(tau), float(a1), float(nu), {"temperature": float(tau)})

    def describe(self) -> str:
        return f"softmax attention, T = {self.temperature:g} (theory: f = {self.f})"

    def label(self) -> str:
        return f"softmax, T = {self.temperature:g}"

    def tex(self) -> str:
        return rf"e^{{x/\tau}} - e^{{1/(2\tau^2)}}$ (softmax attention), $\tau = {self.temperature:g}"


def softmax_data(temperature: Any = 1.0) -> SoftmaxData:
    """:meth:`SoftmaxData.of` (the hook the command line imports by name)."""
    return SoftmaxData.of(temperature)


def softmax_error(c: Any, gamma: Any, *, temperature: Any = 1.0, geometry: Any = None,
                  gram: Any = None) -> np.ndarray:
    r"""Deterministic equivalent of :math:`E_{\rm attn}(\gamma)` for softmax attention at temperature :math:`\tau`.

    The entrywise system (:func:`symrmt.attention_error`, :math:`d = 0`) with the exact Hermite data
    of :math:`f(x) = e^{x/\tau} - e^{1/(2\tau^2)}`, solved as :math:`f/a_1` at :math:`\gamma/a_1^2` (the same
    error; ``(1, nu/a_1^2)`` stays of order one where :math:`a_1` is large); the convention (:math:`K' = \sigma_\tau K^{\rm sm}`,
    normalized over the keys of each query, or over the queries of each key: the same equivalent) is that of
    :mod:`symrmt.simulation.softmax`. Parameters broadcast. The registered model ``softmax``
    (``symrmt.solve_model(SOFTMAX, ...)``, :func:`solve_softmax`).

    Parameters
    ----------
    c, gamma : array_like
        :math:`p/n > 0` and the ridge :math:`\gamma > 0` on :math:`XK'` (a ridge :math:`\lambda` on the
        plain :math:`XK^{\rm sm}` is :math:`\gamma = \sigma_\tau^2\lambda`).
    temperature : array_like
        :math:`\tau \ge` :data:`symrmt.validate.MIN_TEMPERATURE`. The equivalent holds where the normalizers concentrate
        (docs/theory.md, section 15: :math:`\tau \gtrsim 0.5` at n in the thousands).
    geometry, gram
        The signal and the weights, as in :func:`symrmt.attention_error`.

    Returns
    -------
    numpy.ndarray
        :math:`E_\mathrm{attn}` in :math:`[0, 1]`, of the broadcast shape of ``c``, ``gamma`` and ``temperature``.

    Raises
    ------
    ParameterError
        A parameter of the wrong type or outside its range (:math:`\tau \ge 0.054`).
    ConvergenceError
        When some point cannot be solved.

    See Also
    --------
    symrmt.attention_error : The entrywise theory it evaluates.
    symrmt.simulate : ``attention="softmax"`` simulates real softmax attention.

    Examples
    --------
    >>> np.round(softmax_error(1.0, [0.01, 0.1, 1.0]), 4)
    array([0.0805, 0.1791, 0.3889])
    """
    return solve_model(SOFTMAX, c=c, gamma=gamma, temperature=temperature, geometry=geometry, gram=gram).error


def solve_softmax(c: Any, gamma: Any, temperature: Any = 1.0, geometry: Any = None, gram: Any = None, *,
                  form: str = DEFAULT_FORM, partial: bool = False) -> RidgeSolution:
    r"""The solve hook of the ``softmax`` model (:func:`softmax_error`): the attention system of :math:`f/a_1` at
    :math:`\gamma/a_1^2`; its error is softmax attention's (the module docstring). Only :math:`E` is reported:
    :math:`\Phi` of the rescaled features is :math:`a_1^2` times that of :math:`XK'`.

    >>> round(float(solve_softmax(1.0, 0.1).error), 4)
    0.1791
    """
    from ..derive.symbols import ERROR  # heavy: SymPy

    # K -> K/a_1 maps E(gamma) to E(gamma/a_1^2), exactly (finite model and theory): solving with a_1 = 1 keeps
    # the system's numbers of order one where a_1 = e^{1/(2 tau^2)}/tau is large (tau = 0.3: a_1 = 862, nu = 4.5e9).
    tau = check_temperature(temperature, array=True)
    gamma = positive_array("gamma", gamma)              # the user's values; their range is that of gamma/a_1^2
    share, ridge = _share(tau), _ridge(gamma, tau)
    try:
        solved = solve_attention((np.ones_like(share), share), c, ridge, geometry, 0.0, gram, partial=partial,
                                 form=form)
    except ConvergenceError:
        # At c = 1 with a large nonlinear share the solver's continuation can stall on a grid whose points it
        # solves one by one (e.g. 61 points of gamma/a_1^2 in [0.01, 10] at tau = 0.5): retry point by point,
        # each point still checked by the solver.
        solved = _pointwise(share, c, ridge, geometry, gram, form, gamma, tau)
    return dataclasses.replace(solved, observables={ERROR: solved.error})


def _pointwise(share, c, ridge, geometry, gram, form, gamma, tau) -> RidgeSolution:
    """:func:`symrmt.solve_attention` of ``(1, share)`` one broadcast point at a time, stacked; a point that fails is
    named by the user's gamma and temperature (the solver knows only the rescaled gamma/a_1^2)."""
    share, c, ridge, gamma, tau = np.broadcast_arrays(share, np.asarray(c, dtype=float), ridge, gamma, tau)
    points = []
    for index in np.ndindex(share.shape):
        try:
            points.append(solve_attention((1.0, float(share[index])), float(c[index]), float(ridge[index]), geometry,
                                          0.0, gram, form=form))
        except ConvergenceError as exc:
            raise ConvergenceError(
                f"softmax attention could not be solved at temperature = {tau[index]:g}, gamma = {gamma[index]:g}, "
                f"c = {c[index]:g}: its fixed point (the entrywise one at gamma/a_1^2 = gamma*tau^2*e^(-1/tau^2)) "
                "did not converge there; try a larger gamma or temperature.", exc.failures) from None

    def stack(values) -> np.ndarray:
        values = np.array(values)
        return np.moveaxis(values, 0, -1).reshape(*values.shape[1:], *share.shape)

    first = points[0]
    observables = {k: stack([s.observables[k] for s in points]) for k in first.observables}
    return RidgeSolution(observables, stack([s.unknowns for s in points]), stack([s.residual for s in points]),
                         first.unknown_names, np.zeros(share.shape, bool), (),
                         stack([s.form_used for s in points]) if first.form_used is not None else None)


def _ridge(gamma: np.ndarray, tau: np.ndarray) -> np.ndarray:
    r""":math:`\gamma/a_1^2 = \gamma\tau^2 e^{-1/\tau^2}`, or the refusal of the user's :math:`(\gamma, \tau)` where it
    exceeds :data:`symrmt.validate.MAX_GAMMA` (the features shrink like :math:`1/\tau`)."""
    u = (1.0 / tau) ** 2
    with np.errstate(over="ignore"):
        ridge = gamma * tau * tau * np.exp(-u)            # inf where it overflows: refused below
    largest = DOMAINS["gamma"][1]                          # the attention system's largest ridge, for the message
    bad = beyond_gamma(ridge)                              # the range check of validate, worded here in (gamma, tau)
    if np.any(bad):
        g, t = (float(np.broadcast_to(v, bad.shape)[bad][0]) for v in (gamma, tau))
        acts = g * t * t * np.exp(-1.0 / t / t)
        raise ParameterError(
            f"temperature = {t:g} with gamma = {g:g}: the softmax features shrink like 1/tau, so gamma acts as "
            f"gamma*tau^2*e^(-1/tau^2) = {f'{acts:.3g}' if np.isfinite(acts) else 'more than 1e308'} on unit-scale "
            f"features, beyond {largest:g} where the theory is solved (E is 1 there to within its inverse); at "
            f"gamma = {g:g} the largest temperature is {largest_temperature(g):.3g}.")
    return ridge
