r"""Validation: the deterministic equivalent against Monte Carlo of the finite model.

Panel (a) plots, for a grid of settings (nonlinearity :math:`f`, geometry of
:math:`(\mu, w_K, w_Q)`, :math:`c`, :math:`\gamma`), the Monte Carlo mean of
:math:`E_\mathrm{attn}` (with its 95% t interval over seeds) against the theory; the diagonal
is exact agreement. Panel (b) carries a strong aligned signal, where the finite-n corrections
are largest, over a ladder of sizes (:func:`symrmt.converge`): the per-size means against
:math:`n^{-\alpha}`, the fit :math:`E_\infty + b\,n^{-\alpha}` and its extrapolation to
:math:`n = \infty` with a 95% interval, beside the theory, for a smooth :math:`f` (tanh) and
for :math:`a_1 = 0` (:math:`\mathrm{He}_3`).
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from .convergence import convergence_panel, ladder_sentence, run_ladder
from .figure import INTERVAL_TEXT, Figure, Panel, progress
from .series import mc_curve, mc_over_gamma, n_label, theory_curve

#: name -> (formula, colour); He_3 has a_1 = 0.
FUNCTIONS = {"tanh": ("tanh(x)", "C0"), "ReLU (centred)": ("relu(x) - 1/sqrt(2*pi)", "C1"),
             "He_3 = x^3 - 3x": ("x**3 - 3*x", "C3")}
#: name -> (geometry, marker)
GEOMETRIES = {
    "noise": (Geometry(), "o"),
    "signal |mu| = 1": (Geometry(mu_norm=1.0), "s"),
    "aligned w = mu, |mu| = 1": (Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0), "^"),
    "asymmetric w_K != w_Q": (Geometry(1.0, 1.0, 0.5, 0.8, 0.3, 0.2), "D"),
}
GAP_GAMMA = 0.1
GAP_C = 1.0
#: A strong low-rank part (mu^T M mu = 11.25), where the finite-n corrections are largest and their decay visible.
GAP_SETTING = ("strong aligned: w = 2 mu/|mu|, |mu| = 1.5", Geometry(1.5, 2.0, 2.0, 1.0, 1.0, 1.0))


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, functions=["tanh", "He_3 = x^3 - 3x"], geometries=["noise", "aligned w = mu, |mu| = 1"],
                    cs=[1.0], gammas=[0.01, 0.1, 1.0])
    return dict(n=2048, seeds=8, functions=list(FUNCTIONS), geometries=list(GEOMETRIES), cs=[0.5, 1.0, 2.0],
                gammas=[0.01, 0.1, 1.0])


def _grid_panel(s: dict) -> Panel:
    from .. import hermite  # heavy: SymPy

    curves = []
    settings = [(f, g, c) for f in s["functions"] for g in s["geometries"] for c in s["cs"]]
    for fname, gname, c in progress(settings, "validation grid"):
        formula, color = FUNCTIONS[fname]
        geometry, marker = GEOMETRIES[gname]
        h = hermite(formula, center=True)
        theory = symrmt.attention_error(h, c, s["gammas"], geometry)
        mc = mc_over_gamma(h.f, s["n"], c, s["gammas"], geometry, seeds=s["seeds"])
        params = {"f": fname, "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "gamma": mc.gamma, "geometry": gname,
                  **geometry.as_dict(), "n": s["n"], "seeds": s["seeds"]}
        series = f"{fname}, {gname}"
        curves.append(mc_curve(series, "E_attn", "theory", params, mc.attention_mean, mc.attention_se,
                               {"color": color, "marker": marker, "mfc": "none"}, theory=theory,
                               label=series if c == s["cs"][0] else None))
    # The theory itself: every setting's value on the diagonal (one line, the points sorted by value).
    points = {k: np.concatenate([np.broadcast_to(np.asarray(c.params[k]), c.value.shape) for c in curves])
              for k in ("f", "geometry", "c", "gamma", "theory")}
    curves.insert(0, theory_curve("theory (exact agreement)", "E_attn", "theory", {**points, "d": 0.0},
                                  points["theory"], {"color": "k", "linewidth": 1.0}))
    return Panel("a", rf"(a) Monte Carlo against theory, $c \in \{{{', '.join(f'{c:g}' for c in s['cs'])}\}}$, "
                 rf"$\gamma \in \{{{', '.join(f'{g:g}' for g in s['gammas'])}\}}$", curves,
                 r"theory $E_\mathrm{attn}$", r"Monte Carlo $E_\mathrm{attn}$ (mean, 95% t interval)")


def _ladder_panel(s: dict, quick: bool) -> tuple[Panel, str]:
    """Panel (b): tanh and He_3 with the strong aligned signal, over a ladder of sizes to n = infinity."""
    from .. import hermite  # heavy: SymPy

    gap_name, geometry = GAP_SETTING
    ladders, sentences = [], []
    for fname in ("tanh", "He_3 = x^3 - 3x"):
        formula, color = FUNCTIONS[fname]
        h = hermite(formula, center=True)
        result = run_ladder(h, GAP_C, GAP_GAMMA, geometry=geometry, quick=quick)
        tag = {"f": fname, "a1": h.a1, "nu": h.nu, "d": 0.0, "c": GAP_C, "geometry": gap_name, **geometry.as_dict()}
        ladders.append((result, rf"{fname} ($a_1 = {h.a1:.3g}$)", tag, color))
        sentences.append(ladder_sentence(result, "attention", f"E_attn ({fname})", s["n"], None if sentences else "b"))
    panel = convergence_panel("b", rf"(b) finite n: strong aligned signal, $c = {GAP_C:g}$, $\gamma = {GAP_GAMMA:g}$",
                              ladders, "attention", "E_attn", r"$E_\mathrm{attn}(\gamma)$", s["n"])
    return panel, " ".join(sentences)


def build(quick: bool = False, **overrides) -> Figure:
    s = {**_sizes(quick), **overrides}
    ladder, sentence = _ladder_panel(s, quick)
    panels = [_grid_panel(s), ladder]
    caption = (f"(a) n = {s['n']}, p = round(c n), {s['seeds']} seeds, {INTERVAL_TEXT}; colour: f, marker: geometry "
               f"(legend at the first c), d = 0. (b) {GAP_SETTING[0]}. The deterministic equivalent is the limit "
               f"n, p -> infinity; the Monte Carlo of the finite model converges to it, slowly with a_1 = 0. {sentence}")
    return Figure("validation", "Theory against simulation of the finite model, and its convergence in n", caption,
                  panels, mc_label=n_label(s["n"], s["seeds"]), ncols=2)
