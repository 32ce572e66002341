r"""Extrapolation of Monte Carlo means over a ladder of sizes to :math:`n = \infty` (NumPy and SciPy).

Given the means :math:`\bar E_k` and standard errors :math:`s_k` of a quantity at sizes
:math:`n_1 < \dots < n_K` (each from :math:`m_k` independent seeds), :func:`extrapolate` fits

.. math::

    E(n) = E_\infty + \sum_i b_i\, n^{-\alpha_i}

and returns :math:`E_\infty` with a 95% interval that holds the uncertainty of the fit, of the
exponent, of the choice of model and of the sizes used.

The method, and why:

* **Weighted least squares.** For given exponents the model is linear in :math:`E_\infty`
  and the :math:`b_i`; the weights are :math:`1/s_k^2`, so each size counts by its precision.
* **Candidate corrections** (:data:`MODELS`): :math:`n^{-1}` (the order of the bias of a
  smooth statistic of a Gaussian random matrix), :math:`n^{-1/2}` (the order at which a
  fluctuation survives in the mean, e.g. a signal that enters at :math:`\theta/\sqrt n`),
  one free exponent :math:`\alpha` in :data:`EXPONENT_RANGE` (profiled on a grid, refined by
  a parabolic step), and the two-term expansions :math:`n^{-1} + n^{-2}` and
  :math:`n^{-1/2} + n^{-1}`. The one with the lowest AIC, :math:`\chi^2 + 2k` for
  :math:`k` parameters, is taken: a two-term or free-exponent model wins only when it lowers
  :math:`\chi^2` by more than 2, so the exponent is estimated from the data when they
  resolve it and taken from theory otherwise.
* **Fit window by a goodness-of-fit test.** Higher orders matter most at small n. The
  smallest sizes are left out one by one (at least three stay) until the best model of the
  window passes the :math:`\chi^2` test at :data:`P_ACCEPT`; if no window does, the
  narrowest is used. (Choosing windows by a penalized AIC instead, as in lattice QCD,
  dropped the most informative small sizes too often here, and widened the intervals.)
* **Scale factor.** When the chosen fit has :math:`\chi^2/\mathrm{dof} > 1`, the standard
  errors are scaled by :math:`S = \sqrt{\chi^2/\mathrm{dof}}` (the Particle Data Group's
  rule), so a ladder that no candidate describes (a crossover, not a power law) gets a
  wider, not a falsely narrow, interval.
* **Parametric bootstrap that redoes every choice.** Each replicate draws, for every size,
  a variance :math:`\sigma_k^{*2} = S^2 s_k^2 (m_k - 1)/\chi^2_{m_k - 1}` and a mean
  :math:`\hat E(n_k) + \sigma^*_k z` (:math:`z` standard normal), :math:`\hat E` the chosen
  fit inside its window and the data outside it. With few seeds the draw is a Student
  :math:`t_{m_k - 1}`, as a t interval would be. The replicate is refitted by the whole
  procedure (window, model, exponent) with weights :math:`1/\sigma_k^{*2}`; the interval of
  :math:`E_\infty` (and of the exponent) is the percentile interval of the replicates.

Checked on synthetic ladders with a known limit (the default design of
:mod:`symrmt.analysis.convergence`: sd per seed :math:`\propto n^{-1/2}`, seeds :math:`\propto n^{-2}`,
Gaussian noise; 300 ladders each): the 95% interval covered the limit in 95% to 99% of the
ladders for :math:`n^{-1}`, :math:`n^{-1/2}`, :math:`n^{-3/4}`, :math:`n^{-3/2}`, no
correction and the two-term corrections, and in 85% for a crossover
:math:`120/(n + 1500)` that no candidate describes (tests/test_convergence.py keeps a
cheap version of this check). The functions here know nothing of attention: they take
numbers and return numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validate
from ..errors import ParameterError

__all__ = ["Extrapolation", "extrapolate", "MODELS", "EXPONENT_RANGE", "REPLICATES"]

#: Bounds of a free exponent: 1/4 (slower than any order seen in these models) to 2.
EXPONENT_RANGE = (0.25, 2.0)

#: Bootstrap replicates: the 2.5% quantile then has a Monte Carlo error of about 0.3 percentile points.
REPLICATES = 2000

#: The free exponent's grid (step 0.05); it holds the fixed exponents 1/2 and 1 exactly.
_GRID = np.round(np.arange(EXPONENT_RANGE[0], EXPONENT_RANGE[1] + 1e-9, 0.05), 10)

#: A fit window is accepted when the p-value of its chi^2 is at least this.
P_ACCEPT = 0.05

#: A candidate is fitted only where it keeps at least this many degrees of freedom.
MIN_DOF = 1

#: The candidate corrections: name -> exponents of their terms (None: one term, exponent fitted).
MODELS = {"1/n": (1.0,), "1/sqrt(n)": (0.5,), "n^-alpha": None, "1/n + 1/n^2": (1.0, 2.0),
          "1/sqrt(n) + 1/n": (0.5, 1.0)}


@dataclass(frozen=True)
class Extrapolation:
    r"""The fit :math:`E(n) = E_\infty + \sum_i b_i\, n^{-\alpha_i}` of one ladder and its bootstrap interval.

    Attributes
    ----------
    limit, lo, hi : float
        :math:`E_\infty` and its two-sided interval of ``level``.
    exponent, exponent_lo, exponent_hi : float
        The leading (smallest) exponent :math:`\alpha` of the chosen model, and its interval over the
        replicates (each replicate's own choice).
    model : str
        The chosen correction, a key of :data:`MODELS`.
    exponents, amplitudes : tuple of float
        The terms :math:`\alpha_i` and :math:`b_i` of the correction.
    first : int
        The smallest size of the fit window (the sizes below it were left out).
    chi2 : float
        :math:`\chi^2` of the chosen fit (unscaled); ``dof`` its degrees of freedom.
    scale : float
        The scale factor :math:`\max(1, \sqrt{\chi^2/\mathrm{dof}})` applied to the standard errors.
    level : float
        The level of the intervals.
    """

    limit: float
    lo: float
    hi: float
    exponent: float
    exponent_lo: float
    exponent_hi: float
    model: str
    exponents: tuple[float, ...]
    amplitudes: tuple[float, ...]
    first: int
    chi2: float
    dof: int
    scale: float
    level: float = 0.95

    def correction(self, n: float | np.ndarray) -> np.ndarray:
        r"""The fitted finite-size correction :math:`\sum_i b_i\, n^{-\alpha_i}` at size ``n``."""
        n = np.asarray(n, dtype=np.float64)
        return sum(b * n**-a for a, b in zip(self.exponents, self.amplitudes))

    def size_within(self, relative: float = 0.01) -> float:
        r"""The size from which the fitted correction stays within ``relative`` of the limit,
        :math:`|{\rm correction}(n')| \le \text{relative}\,|E_\infty|` for every :math:`n' \ge n`:
        :math:`(|b|/(\text{relative}\,|E_\infty|))^{1/\alpha}` for one term, else found on a grid of
        1000 sizes per decade up to :math:`10^{12}` (inf beyond, and when :math:`E_\infty = 0`)."""
        bound = relative * abs(self.limit)
        if len(self.exponents) == 1:
            if self.amplitudes[0] == 0:
                return 1.0
            return float((abs(self.amplitudes[0]) / bound) ** (1.0 / self.exponents[0])) if bound else float("inf")
        sizes = np.logspace(0, 12, 12001)
        outside = np.nonzero(np.abs(self.correction(sizes)) > bound)[0]
        if outside.size == 0:
            return 1.0
        return float("inf") if outside[-1] == sizes.size - 1 else float(sizes[outside[-1] + 1])


def extrapolate(ns, mean, se, seeds, *, level: float = 0.95, replicates: int = REPLICATES,
                rng: np.random.Generator | None = None) -> Extrapolation:
    r"""Fit :math:`E(n) = E_\infty + \sum_i b_i n^{-\alpha_i}` to a ladder and bootstrap :math:`E_\infty`.

    The method is that of the module docstring.

    Parameters
    ----------
    ns : array_like of int
        The sizes, at least three, increasing.
    mean, se : array_like
        The mean over seeds at each size and its standard error (``sd / sqrt(seeds)``).
    seeds : array_like of int
        The number of seeds (at least 2) behind each mean.
    level : float
        Level of the two-sided intervals.
    replicates : int
        Bootstrap replicates.
    rng : numpy.random.Generator, optional
        Source of the replicates (default: a fixed seed, so that a result is reproducible).

    Returns
    -------
    Extrapolation

    Examples
    --------
    >>> ns = np.array([256, 512, 1024, 2048, 4096])
    >>> fit = extrapolate(ns, 0.4 + 3.0 / ns, np.full(5, 1e-4), np.full(5, 10))
    >>> round(fit.limit, 4), fit.model, bool(fit.lo < 0.4 < fit.hi)
    (0.4, '1/n', True)
    """
    ns, mean, se, seeds = _checked(ns, mean, se, seeds)
    rng = np.random.default_rng(0) if rng is None else rng
    scaled = ns / ns[-1]                                  # sizes in units of the largest (conditioning)
    best = {key: value[0] for key, value in _choose(scaled, mean[None, :], 1.0 / se[None, :] ** 2).items()}
    chi2, dof, first = float(best["chi2"]), int(best["dof"]), int(best["first"])
    scale = max(1.0, float(np.sqrt(chi2 / dof)))
    name = list(MODELS)[int(best["model"])]
    exponents = MODELS[name] or (float(best["alpha"]),)
    terms = [float(b) for b in best["slopes"][:len(exponents)]]
    center = mean.copy()                                 # the fitted curve inside the window, the data outside
    center[first:] = best["limit"] + sum(b * scaled[first:] ** -a for a, b in zip(exponents, terms))
    replicate = _choose(scaled, *_replicates(center, se, seeds, scale, replicates, rng))
    tail = (1 - level) / 2
    lo, hi = np.quantile(replicate["limit"], [tail, 1 - tail])
    alpha_lo, alpha_hi = np.quantile(replicate["alpha"], [tail, 1 - tail])
    return Extrapolation(limit=float(best["limit"]), lo=float(lo), hi=float(hi), exponent=min(exponents),
                         exponent_lo=float(alpha_lo), exponent_hi=float(alpha_hi), model=name,
                         exponents=tuple(exponents), amplitudes=tuple(b * ns[-1] ** a for a, b in zip(exponents, terms)),
                         first=int(ns[first]), chi2=chi2, dof=dof, scale=scale, level=level)


def _checked(ns, mean, se, seeds) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ns = np.asarray(ns, dtype=np.float64)
    mean, se = np.asarray(mean, dtype=np.float64), np.asarray(se, dtype=np.float64)
    seeds = np.asarray(seeds)
    if ns.ndim != 1 or ns.size < 3 or np.any(np.diff(ns) <= 0):
        raise ParameterError(f"ns = {ns.tolist()}: give at least three increasing sizes.")
    if mean.shape != ns.shape or se.shape != ns.shape or seeds.shape != ns.shape:
        raise ParameterError("mean, se and seeds must have one entry per size.")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(se)) and np.all(se >= 0)):
        raise ParameterError("mean and se must be finite, se >= 0 (a size whose seeds all failed has no mean).")
    if np.any(seeds < 2):
        raise ParameterError(f"seeds = {seeds.tolist()}: every size needs 2 or more; {validate.TWO_SEEDS}.")
    # A size whose seeds agree exactly would get an infinite weight; its precision is that of float64.
    floor = 1e-12 * max(1.0, float(np.max(np.abs(mean))))
    return ns, mean, np.maximum(se, floor), seeds.astype(np.int64)


def _replicates(center: np.ndarray, se: np.ndarray, seeds: np.ndarray, scale: float, replicates: int,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    r"""Replicate means and weights, shape ``(replicates, K)`` (module docstring: variance, then mean)."""
    dof = seeds - 1
    variance = (scale * se) ** 2 * dof / rng.chisquare(dof, size=(replicates, se.size))   # of the mean
    draws = center + np.sqrt(variance) * rng.standard_normal((replicates, se.size))
    return draws, 1.0 / variance


def _least_squares(design: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Weighted least squares, batched by broadcasting: ``design`` (..., K, q) against ``y`` and ``w``
    (..., K) -> coefficients (..., q) and :math:`\chi^2` (...), by the normal equations (q <= 3 columns,
    well scaled: the sizes are in units of the largest)."""
    weighted = np.swapaxes(w[..., None] * design, -1, -2)                     # (..., q, K)
    coefficients = np.linalg.solve(weighted @ design, weighted @ y[..., None])[..., 0]
    residual = y - (design @ coefficients[..., None])[..., 0]
    return coefficients, np.sum(w * residual**2, axis=-1)


def _choose(scaled: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of ``y`` (weights ``w``): the widest window whose best model fits, and that model.

    Windows drop the smallest sizes one by one while at least three remain; in each, the model of
    :data:`MODELS` with the lowest AIC is taken. The first window whose chi^2 p-value is at least
    :data:`P_ACCEPT` wins; when none is, the narrowest (the sizes nearest the limit).
    """
    from scipy.stats import chi2 as chi2_law  # heavy: SciPy

    rows, sizes = y.shape
    chosen, settled = None, np.zeros(rows, bool)
    for cut in range(sizes - 1 - MIN_DOF):          # the narrowest window fits two parameters
        window = _best_model(scaled[cut:], y[:, cut:], w[:, cut:])
        window["first"] = np.full(rows, cut)
        chosen = window if chosen is None else {
            key: np.where(settled.reshape((-1,) + (1,) * (value.ndim - 1)), chosen[key], value)
            for key, value in window.items()}
        settled |= chi2_law.sf(window["chi2"], window["dof"]) >= P_ACCEPT
    return chosen


def _best_model(scaled: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    """For each row of ``y`` (weights ``w``), the candidate of :data:`MODELS` with the lowest AIC."""
    rows, sizes = y.shape
    score = np.full(rows, np.inf)
    out = {"limit": np.zeros(rows), "slopes": np.zeros((rows, 2)), "alpha": np.zeros(rows),
           "chi2": np.zeros(rows), "dof": np.zeros(rows), "model": np.zeros(rows)}
    for index, exponents in enumerate(MODELS.values()):
        terms = 1 if exponents is None else len(exponents)
        parameters = terms + 1 + (exponents is None)
        if sizes - parameters < MIN_DOF:                 # too few degrees of freedom left to judge the fit
            continue
        coefficients, chi2, alpha = _fit(scaled, y, w, exponents)
        aic = chi2 + 2 * parameters
        better = aic < score
        score = np.where(better, aic, score)
        slopes = np.zeros((rows, 2))
        slopes[:, :terms] = coefficients[:, 1:]
        for key, value in (("limit", coefficients[:, 0]), ("alpha", alpha), ("chi2", chi2),
                           ("dof", sizes - parameters), ("model", index)):
            out[key] = np.where(better, value, out[key])
        out["slopes"] = np.where(better[:, None], slopes, out["slopes"])
    return out


def _fit(scaled: np.ndarray, y: np.ndarray, w: np.ndarray, exponents: tuple[float, ...] | None):
    """``(coefficients, chi2, leading exponent)`` per row; a free exponent is profiled over the grid,
    then refined by one parabolic step through the grid minimum and its two neighbours."""
    if exponents is not None:
        return (*_least_squares(_design(scaled, exponents), y, w), np.full(y.shape[0], min(exponents)))
    _, chi2 = _least_squares(_design(scaled, _GRID[:, None]), y[:, None, :], w[:, None, :])   # (B, A)
    middle = np.clip(np.argmin(chi2, axis=1), 1, _GRID.size - 2)
    take = np.arange(y.shape[0])
    left, centre, right = (chi2[take, middle + k] for k in (-1, 0, 1))
    curvature = left - 2 * centre + right
    with np.errstate(divide="ignore", invalid="ignore"):
        step = np.where(curvature > 0, 0.5 * (left - right) / curvature, 0.0)
    refined = np.clip(_GRID[middle] + np.clip(step, -1, 1) * (_GRID[1] - _GRID[0]), *EXPONENT_RANGE)
    alpha = np.stack([_GRID[np.argmin(chi2, axis=1)], refined], axis=1)              # (B, 2): keep the better
    coefficients, chi2 = _least_squares(_design(scaled, alpha[..., None]), y[:, None, :], w[:, None, :])
    better = np.argmin(chi2, axis=1)
    return coefficients[take, better], chi2[take, better], alpha[take, better]


def _design(scaled: np.ndarray, exponents) -> np.ndarray:
    """The columns 1 and ``scaled**-a``: shape (K, q) for a tuple of exponents, (..., K, 2) for an array (..., 1)."""
    if isinstance(exponents, tuple):
        return np.stack([np.ones_like(scaled), *(scaled**-a for a in exponents)], axis=-1)
    powers = scaled ** -np.asarray(exponents)                                    # (..., K)
    return np.stack([np.ones_like(powers), powers], axis=-1)
