r"""Summaries over independent seeds: mean, standard error and t intervals (NumPy and SciPy only).

With :math:`s` seeds of a Monte Carlo, the mean :math:`\bar E` has standard error
:math:`\mathrm{se} = \mathrm{sd}/\sqrt s` (``ddof=1``), and a two-sided interval of level
:math:`1 - \alpha` is :math:`\bar E \pm t_{1-\alpha/2,\,s-1}\,\mathrm{se}`: with few seeds the
Student quantile matters (:math:`t_{0.975,2} = 4.30`, :math:`t_{0.975,5} = 2.57`, against 1.96).
A difference of two methods on the same draws is summarized from its per-seed differences
(paired), whose standard error is smaller than that of either method when they are correlated.
"""
from __future__ import annotations

import numpy as np

__all__ = ["mean_se", "t_quantile", "t_interval"]


def mean_se(per_seed: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean over seeds (``axis``) and its standard error :math:`\mathrm{sd}_{\mathrm{ddof}=1}/\sqrt s`.

    NaN entries (a point a seed could not compute) are left out of their column; a column
    with fewer than two values has standard error NaN (undefined), never 0.

    Examples
    --------
    >>> mean, se = mean_se(np.array([[1.0, 2.0], [3.0, 2.0]]))
    >>> mean.tolist(), se.tolist()
    ([2.0, 2.0], [1.0, 0.0])
    """
    values = np.asarray(per_seed, dtype=np.float64)
    count = np.sum(np.isfinite(values), axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(values, axis=axis) / count
        deviation = np.where(np.isfinite(values), values - np.expand_dims(mean, axis), 0.0)
        variance = np.sum(deviation**2, axis=axis) / (count - 1)
        se = np.where(count > 1, np.sqrt(variance / count), np.nan)
    return np.where(count > 0, mean, np.nan), se


def t_quantile(seeds: int | np.ndarray, level: float = 0.95) -> np.ndarray:
    r"""The two-sided Student quantile :math:`t_{(1+\text{level})/2,\ \text{seeds}-1}` (NaN below 2 seeds)."""
    from scipy.stats import t  # heavy: SciPy

    seeds = np.asarray(seeds)
    with np.errstate(invalid="ignore"):
        return np.where(seeds > 1, t.ppf(0.5 + level / 2, np.maximum(seeds - 1, 1)), np.nan)


def t_interval(per_seed: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(mean, lo, hi)``: the mean over seeds and its two-sided Student-t interval of ``level``.

    Examples
    --------
    >>> mean, lo, hi = t_interval(np.array([1.0, 2.0, 3.0]))
    >>> float(mean), round(float(hi - mean), 4)      # t_{0.975, 2} * 1/sqrt(3) = 4.3027 * 0.5774
    (2.0, 2.4841)
    """
    mean, se = mean_se(per_seed, axis)
    count = np.sum(np.isfinite(np.asarray(per_seed, dtype=np.float64)), axis=axis)
    half = t_quantile(count, level) * se
    return mean, mean - half, mean + half
