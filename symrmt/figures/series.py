"""The curves of a figure: theory lines, Monte Carlo markers, and the Monte Carlo calls behind them."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .figure import Curve, paired_difference

__all__ = ["LINEAR_STYLE", "n_label", "theory_curve", "mc_curve", "mc_over_gamma", "mc_gap"]

#: Linear regression is drawn in black, dashed, in every figure.
LINEAR_STYLE = {"color": "k", "linestyle": "--", "marker": "s"}


def n_label(n: int, seeds: int) -> str:
    return f", n = {n}, {seeds} seeds"


def theory_curve(label: str | None, quantity: str, x: str, params: dict[str, Any], value, style: dict,
                 series: str | None = None) -> Curve:
    return Curve(label=label, source="theory", quantity=quantity, x=x, params=params, value=value, style=style,
                 series=series)


def mc_curve(series: str, quantity: str, x: str, params: dict[str, Any], mean, se, style: dict,
             theory=None, label: str | None = None) -> Curve:
    """Monte Carlo markers of ``series``; ``theory``: the deterministic equivalent at the same points."""
    if theory is not None:
        params = {**params, "theory": np.asarray(theory, dtype=float)}
    return Curve(label=label, source="monte_carlo", quantity=quantity, x=x, params=params, value=mean, se=se,
                 style=style, series=series)


def mc_over_gamma(f: str | Callable | None, n: int, c: float, gamma, geometry=None, d: float = 0.0,
                  seeds: int = 4, seed: int = 0, gram=None, **attention):
    """One :func:`symrmt.simulate` call: every gamma from the same draws (``attention``: e.g. softmax's keywords)."""
    return symrmt.simulate(f, n=n, c=c, gamma=np.asarray(gamma, float), geometry=geometry, d=d, seeds=seeds,
                           seed=seed, gram=gram, progress=False, **attention)   # the figure's own bar counts the settings


def mc_gap(run, index: int = 0) -> tuple[float, float]:
    r"""Paired :math:`E_\mathrm{attn} - E_\mathrm{lin}` of one simulation at its ``index``-th gamma: (mean, se)."""
    mean, se = paired_difference(run.attention_per_seed[:, index], run.linear_per_seed[:, index])
    return float(mean), float(se)
