"""Small pieces the figure modules share: the nonlinearities, their colours, and Monte Carlo calls."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..geometry import Geometry
from ._core import Curve

__all__ = ["Nonlinearity", "ZOO", "nonlinearity", "mc_over_gamma", "theory_curve", "mc_curve",
           "LINEAR_STYLE", "n_label"]


@dataclass(frozen=True)
class Nonlinearity:
    """A centred f: a short name for legends and CSVs, the formula given to symrmt, and a colour."""

    name: str
    formula: str
    color: str

    def hermite(self):
        from ..nonlinearity import hermite

        return hermite(self.formula, center=True)


#: The nonlinearities of the random-input figure, centred (the theory needs a_0 = 0).
ZOO: dict[str, Nonlinearity] = {n.name: n for n in (
    Nonlinearity("tanh", "tanh(x)", "C0"),
    Nonlinearity("ReLU (centred)", "relu(x) - 1/sqrt(2*pi)", "C1"),
    Nonlinearity("erf", "erf(x)", "C2"),
    Nonlinearity("sin", "sin(x)", "C3"),
    Nonlinearity("GELU (centred)", "gelu(x) - 1/(2*sqrt(pi))", "C4"),
    Nonlinearity("x", "x", "C5"),
)}

#: Linear regression is drawn in black, dashed, in every figure.
LINEAR_STYLE = {"color": "k", "linestyle": "--", "marker": "s"}


def nonlinearity(name: str) -> Nonlinearity:
    return ZOO[name]


def n_label(n: int, seeds: int) -> str:
    return f", n = {n}, {seeds} seeds"


def theory_curve(label: str | None, quantity: str, x: str, params: dict[str, Any], value, style: dict) -> Curve:
    return Curve(label=label, source="theory", quantity=quantity, x=x, params=params, value=value, style=style)


def mc_curve(label: str | None, quantity: str, x: str, params: dict[str, Any], mean, se, style: dict) -> Curve:
    return Curve(label=label, source="monte_carlo", quantity=quantity, x=x, params=params, value=mean, se=se,
                 style=style)


def mc_over_gamma(f: str | Callable, n: int, c: float, gamma, geometry: Geometry = Geometry(), d: float = 0.0,
                  seeds: int = 4, seed: int = 0):
    """One :func:`symrmt.simulate` call: every gamma from the same draws."""
    from ..simulation import simulate

    return simulate(f, n=n, c=c, gamma=np.asarray(gamma, float), geometry=geometry, d=d, seeds=seeds, seed=seed,
                    progress=False)   # the figure's own bar counts the settings
