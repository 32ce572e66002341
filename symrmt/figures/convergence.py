r"""Convergence panels: the Monte Carlo on a ladder of sizes, extrapolated to :math:`n = \infty`.

Where a figure's markers miss its lines by more than their interval, the figure carries a
panel built here from :func:`symrmt.converge`: the per-size means with their 95% t intervals
against :math:`x = n^{-\alpha}`, with :math:`\alpha` the leading exponent of the chosen fit (so
that a one-term fit :math:`E(n) = E_\infty + b\,n^{-\alpha}` is a straight line reaching
:math:`E_\infty` at :math:`x = 0`, i.e. :math:`n = \infty`; a two-term fit is a curve), the
extrapolated limit with its 95% interval, and the theory. The axis uses the exponent of the
first ladder; a second ladder's fit is then a curve, drawn through its own exponent.
:func:`ladder_sentence` writes the caption's account of the finite-n effect at the figure's n.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import converge
from .figure import Curve, Panel, relative_text
from .series import mc_curve, theory_curve

__all__ = ["run_ladder", "ladder_curves", "convergence_panel", "ladder_sentence", "fit_formula", "LADDERS"]

#: The ladders of sizes, and the seeds at the largest size (smaller sizes get more, at about equal cost).
LADDERS = {True: dict(ns=[128, 256, 512], top_seeds=3), False: dict(ns=[512, 1024, 2048, 4096], top_seeds=6)}

_DENSE = 60      # points of a drawn fit curve


def run_ladder(f, c: float, gamma: float, *, geometry=None, gram=None, quick: bool, seed: int = 0,
               sizes: dict | None = None, **attention):
    """:func:`symrmt.converge` at one gamma on the ladder of the mode (:data:`LADDERS`, or ``sizes`` with ``ns``
    and ``top_seeds``); ``attention``: softmax's keywords (``attention="softmax", temperature=tau``, f None)."""
    sizes = sizes or LADDERS[bool(quick)]
    return converge(f, c, [gamma], geometry=geometry, gram=gram, ns=sizes["ns"], seeds=sizes["top_seeds"],
                    seed=seed, progress=False, **attention)


def _fit(result, quantity: str):
    ladder = getattr(result, quantity)
    return ladder, ladder.fits[0]


def fit_formula(fit, tex: bool) -> str:
    r"""The chosen finite-size model, e.g. :math:`E_\infty + b_1 n^{-1/2} + b_2 n^{-1}` (LaTeX or plain text)."""
    terms = [f"b_{k + 1} n^{{-{a:.3g}}}" if tex else f"b_{k + 1} n^(-{a:.3g})" for k, a in enumerate(fit.exponents)]
    if len(terms) == 1:
        terms = [terms[0].replace("b_1", "b")]
    formula = " + ".join([r"E_\infty" if tex else "E_inf", *terms])
    return f"${formula}$" if tex else formula


def ladder_curves(result, quantity: str, label: str, tag: dict[str, Any], color: str, axis_exponent: float,
                  name: str) -> list[Curve]:
    r"""Markers at each n, the fitted :math:`E_\infty + b\,n^{-\alpha}`, and the limit with its interval.

    ``name`` is the quantity as the CSV names it (e.g. ``"E_attn"``); x is ``n_power`` =
    :math:`n^{-\alpha_\mathrm{axis}}`.
    """
    ladder, fit = _fit(result, quantity)
    ns = np.asarray(result.ns, dtype=float)
    base = {**tag, "gamma": float(result.gamma[0])}
    style = {"color": color}
    markers = mc_curve(label, name, "n_power",
                       {**base, "n": ns, "seeds": np.asarray(result.seeds), "n_power": ns**-axis_exponent},
                       ladder.mean[:, 0], ladder.se[:, 0], {**style, "marker": "o"}, theory=ladder.theory[0],
                       label=f"{label}: Monte Carlo at each n")
    dense_x = np.linspace(0.0, 1.05 * ns.min() ** -axis_exponent, _DENSE)[1:]
    dense_n = dense_x ** (-1.0 / axis_exponent)
    line = Curve(label=f"{label}: fit {fit_formula(fit, tex=True)}", source="extrapolation",
                 quantity=name, x="n_power", params={**base, "n": dense_n, "n_power": dense_x},
                 value=fit.limit + fit.correction(dense_n), style={**style, "linestyle": "-", "linewidth": 1.0},
                 series=f"{label}: fit")
    limit = Curve(label=f"{label}: extrapolated to n = ∞ (95% interval)", source="extrapolation", quantity=name,
                  x="n_power", params={**base, "n": np.inf, "n_power": 0.0}, value=[fit.limit], low=[fit.lo],
                  high=[fit.hi], style={**style, "marker": "D", "ms": 6, "mfc": "white"}, series=f"{label}: limit")
    return [markers, line, limit]


def convergence_panel(key: str, title: str, ladders: Sequence[tuple[Any, str, dict, str]], quantity: str,
                      name: str, ylabel: str, figure_n: int) -> Panel:
    """A panel of one or more ladders ``(result, label, tag, colour)`` of ``quantity`` (attention/linear/gap)."""
    first = ladders[0][0]
    alpha = float(_fit(first, quantity)[1].exponent)
    curves = []
    for result, label, tag, color in ladders:
        curves += ladder_curves(result, quantity, label, tag, color, alpha, name)
    ns = np.asarray(first.ns, dtype=float)
    edge = 1.05 * ns.min() ** -alpha
    theories = [float(getattr(result, quantity).theory[0]) for result, *_ in ladders]
    shared = np.allclose(theories, theories[0], rtol=1e-10, atol=1e-12)   # one line when every ladder has the same
    for (result, label, tag, color), theory in zip(ladders[:1] if shared else ladders, theories):
        curves.append(theory_curve(r"theory ($n = \infty$)" if shared else rf"{label}: theory ($n = \infty$)",
                                   name, "n_power", {**tag, "gamma": float(result.gamma[0]),
                                                     "n_power": np.array([0.0, edge])},
                                   [theory, theory], {"color": "k" if shared else color, "linestyle": "--"},
                                   series="theory" if shared else f"{label}: theory"))
    extra = []
    if ns.min() <= figure_n <= ns.max():
        extra.append({"x": [figure_n**-alpha] * 2, "y": None, "label": f"this figure's n = {figure_n}"})
    return Panel(key, title, curves, rf"$n^{{-{alpha:.3g}}}$ (ticks: n)", ylabel,
                 xticks=(0.0, *(ns**-alpha)), xticklabels=("∞", *(f"{int(n)}" for n in ns)), xlim=(-0.04 * edge, edge),
                 extra=extra, convergence=True)


def ladder_sentence(result, quantity: str, name: str, figure_n: int, panel: str | None) -> str:
    """The caption's account of one ladder: the effect at the figure's n, the extrapolated limit, the theory.

    ``panel``: the panel's key, named with the sizes and seeds at the start (None: a further ladder of
    the same panel, the sizes already named). The effect at the figure's n is the ladder's mean
    minus the theory where the ladder has that size, else the fit's value there minus the theory.
    """
    ladder, fit = _fit(result, quantity)
    ns = [int(n) for n in result.ns]
    theory = float(ladder.theory[0])
    if figure_n in ns:
        mean = float(ladder.mean[ns.index(figure_n), 0])
        effect = mean - theory
        at = f"at this figure's n = {figure_n} the Monte Carlo {name} is {mean:+.4f} against the theory's {theory:+.4f}"
    else:
        fitted = float(fit.limit + fit.correction(figure_n))
        effect = fitted - theory
        at = (f"at this figure's n = {figure_n} the fit puts the Monte Carlo {name} at {fitted:+.4f} against the "
              f"theory's {theory:+.4f}")
    relative = f", {relative_text(effect, theory)} of it" if relative_text(effect, theory) else ""
    holds = "holds" if bool(ladder.agrees[0]) else "does not hold"
    intro = "" if panel is None else (f"Panel ({panel}), sizes n = {', '.join(map(str, ns))} with "
                                      f"{', '.join(str(int(s)) for s in result.seeds)} seeds: ")
    text = (f"{at} (a finite-n effect of {effect:+.4f}{relative}); the fit E(n) = {fit_formula(fit, tex=False)} "
            f"extrapolates to {fit.limit:+.4f}, 95% interval [{fit.lo:+.4f}, {fit.hi:+.4f}], which {holds} the theory.")
    return intro + text if intro else text[0].upper() + text[1:]
