r"""The paper's ridge-regression figure at its own settings: :math:`E_\mathrm{RR} = E_\mathrm{lin}` of the tokens.

The first version of the paper (arXiv:2506.18656v1) opens with linear ridge regression on the
tokens :math:`X = Z + \mu y^\top`, :math:`E_\mathrm{RR}(\gamma) = \frac{\gamma^2}{n}\,
y^\top (X^\top X/n + \gamma I_n)^{-2} y` (docs/theory.md, section 8), in three panels whose
captions give the settings:

- (a) against the ridge :math:`\gamma` at :math:`p = 2048`, :math:`n = 512`, :math:`\|\mu\|^2 = 1`;
- (b) against the dimension :math:`p` at :math:`n = 4096`, :math:`\gamma = 10^{-5}`, :math:`\|\mu\|^2 = 1`;
- (c) against :math:`\|\mu\|^2` at :math:`p = 512`, :math:`n = 2048`. The caption as quoted gives no
  ridge for this panel; the figure draws :math:`\gamma = 10^{-5}` (panel b's) and :math:`\gamma = 1`.

Lines are :func:`symrmt.linear_error`; markers are the ``linear_mean`` of :func:`symrmt.simulate`
at the paper's :math:`n` and :math:`p` (``quick=True`` divides both by 8 for the smoke test).
The simulator also draws an attention matrix for each draw (here :math:`f = x`); the figure
plots only the regression on the raw tokens, which does not depend on it.

The claim (:data:`symrmt.figures.claims.CLAIMS` ``["paper_fig1"]``) is the closed form the lines
follow at a vanishing ridge, :math:`E_\mathrm{RR}(0^+) = (1 - c)_+/(1 + \|\mu\|^2)` with
:math:`c = p/n`, checked against the solver.
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from ..errors import SymrmtInputError
from .series import LINEAR_STYLE, mc_curve, mc_over_gamma, theory_curve
from .figure import INTERVAL_TEXT, Figure, Panel, progress

#: Panel (a): the paper's p and n (c = p/n = 4) and signal.
A_P, A_N, MU2 = 2048, 512, 1.0
#: Panel (b): the paper's n and ridge.
B_N, B_GAMMA = 4096, 1e-5
#: Panel (c): the paper's p and n (c = 1/4), and the two ridges drawn (the caption quoted gives none).
C_P, C_N, C_GAMMAS = 512, 2048, (1e-5, 1.0)
#: Divisor of every n and p in quick mode (the ratios, hence the theory, are the paper's).
QUICK_SHRINK = 8
#: The attention matrix the simulator draws alongside; it does not enter E_RR.
F_UNUSED = "x"
#: Panels (a) and (c) are cheap (p n^2 at most 2e9 per draw against 7e10 for (b) at p = n = 4096), so they get this
#: many times the seeds: E_RR at a small ridge varies by about 5% from draw to draw at n = 512, and with 4 seeds
#: the t interval of a point is too uncertain to say whether the theory is inside.
CHEAP_SEEDS = 4


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(shrink=QUICK_SHRINK, seeds=3, gamma_mc=[1e-3, 1e-1, 10.0], p_mc=[256, 1024, 4096, 6144],
                    theta_mc=[0.0, 1.0, 4.0], points=60)
    return dict(shrink=1, seeds=4, gamma_mc=list(np.logspace(-5, 2, 8)), p_mc=[512, 1024, 2048, 3072, 4096, 6144],
                theta_mc=[0.0, 0.5, 1.0, 2.0, 4.0], points=150)


def _geometry(theta: float):
    return Geometry(mu_norm=float(np.sqrt(theta)))


def _panel_a(s: dict) -> Panel:
    n, p = A_N // s["shrink"], A_P // s["shrink"]
    c = A_P / A_N
    gamma = np.logspace(-5, 2, s["points"])
    tag = {"f": "linear regression", "c": c, "theta": MU2}
    seeds = CHEAP_SEEDS * s["seeds"]
    mc = mc_over_gamma(F_UNUSED, n, c, s["gamma_mc"], geometry=_geometry(MU2), seeds=seeds)
    curves = [theory_curve("theory", "E_RR", "gamma", {**tag, "gamma": gamma},
                           symrmt.linear_error(c, gamma, _geometry(MU2)), LINEAR_STYLE, series="E_RR"),
              mc_curve("E_RR", "E_RR", "gamma", {**tag, "gamma": mc.gamma, "n": n, "p": p, "seeds": seeds},
                       mc.linear_mean, mc.linear_se, LINEAR_STYLE,
                       theory=symrmt.linear_error(c, mc.gamma, _geometry(MU2)))]
    return Panel("a", rf"(a) against the ridge: $p = {A_P}$, $n = {A_N}$, $\|\mu\|^2 = {MU2:g}$", curves,
                 r"ridge $\gamma$", r"$E_\mathrm{RR}(\gamma)$", xscale="log", yscale="log")


def _panel_b(s: dict) -> Panel:
    n = B_N // s["shrink"]
    p_line = np.linspace(128.0, 8192.0, s["points"])
    p_mc = np.array(s["p_mc"]) // s["shrink"]
    tag = {"f": "linear regression", "gamma": B_GAMMA, "theta": MU2}
    means, ses = [], []
    for p in progress(p_mc, "paper_fig1 (b)"):
        mc = mc_over_gamma(F_UNUSED, n, p / n, [B_GAMMA], geometry=_geometry(MU2), seeds=s["seeds"])
        means.append(mc.linear_mean[0])
        ses.append(mc.linear_se[0])
    c_line, c_mc = p_line / B_N, p_mc / n
    curves = [theory_curve("theory", "E_RR", "p", {**tag, "c": c_line, "p": p_line, "n": B_N},
                           symrmt.linear_error(c_line, B_GAMMA, _geometry(MU2)), LINEAR_STYLE, series="E_RR"),
              mc_curve("E_RR", "E_RR", "p", {**tag, "c": c_mc, "p": p_mc * s["shrink"], "n": n, "seeds": s["seeds"]},
                       means, ses, LINEAR_STYLE, theory=symrmt.linear_error(c_mc, B_GAMMA, _geometry(MU2)))]
    return Panel("b", rf"(b) against $p$: $n = {B_N}$, $\gamma = 10^{{-5}}$, $\|\mu\|^2 = {MU2:g}$", curves,
                 r"dimension $p$ (at the paper's $n$; $c = p/n$)", r"$E_\mathrm{RR}(\gamma)$",
                 ylim=(-0.02, 0.52), extra=[{"x": [B_N], "y": None, "label": "$p = n$", "color": "0.6", "ls": ":"}])


def _panel_c(s: dict) -> Panel:
    n, p = C_N // s["shrink"], C_P // s["shrink"]
    c = C_P / C_N
    theta_line = np.linspace(0.0, 4.0, s["points"])
    seeds = CHEAP_SEEDS * s["seeds"]
    runs = [mc_over_gamma(F_UNUSED, n, c, list(C_GAMMAS), geometry=_geometry(t), seeds=seeds)
            for t in progress(s["theta_mc"], "paper_fig1 (c)")]
    theta_mc = np.array(s["theta_mc"])
    curves = []
    for k, (gamma, color) in enumerate(zip(C_GAMMAS, ("k", "C3"))):
        style = {**LINEAR_STYLE, "color": color}
        series = f"E_RR, gamma = {gamma:g}"
        tag = {"f": "linear regression", "c": c, "gamma": gamma}
        curves.append(theory_curve(rf"theory, $\gamma = {gamma:g}$", "E_RR", "theta", {**tag, "theta": theta_line},
                                   [float(symrmt.linear_error(c, gamma, _geometry(t))) for t in theta_line], style,
                                   series=series))
        curves.append(mc_curve(series, "E_RR", "theta", {**tag, "theta": theta_mc, "n": n, "p": p, "seeds": seeds},
                               [r.linear_mean[k] for r in runs], [r.linear_se[k] for r in runs], style,
                               theory=[float(symrmt.linear_error(c, gamma, _geometry(t))) for t in theta_mc]))
    return Panel("c", rf"(c) against the signal: $p = {C_P}$, $n = {C_N}$", curves, r"signal $\|\mu\|^2$",
                 r"$E_\mathrm{RR}(\gamma)$", ylim=(-0.02, 1.02), dodge=0.01)


def build(quick: bool = False, **overrides) -> Figure:
    """The figure (``overrides``: ``seeds``, or ``shrink`` to divide the paper's n and p)."""
    if "n" in overrides:
        raise SymrmtInputError("figure paper_fig1 runs at the paper's n and p (each panel has its own); drop --n, "
                               "and use --quick for n and p divided by 8.")
    s = {**_sizes(quick), **overrides}
    panels = [_panel_a(s), _panel_b(s), _panel_c(s)]
    scale = "the paper's n and p" if s["shrink"] == 1 else f"n and p divided by {s['shrink']} (same c = p/n)"
    # symrmt.figures.build puts the claim's title and sentence first (symrmt.figures.claims).
    caption = ("Linear ridge regression on the tokens X = Z + mu y^T (y Rademacher, Z Gaussian), "
               "E_RR(gamma) = (gamma^2/n) y^T (X^T X/n + gamma I)^-2 y, at the settings of the paper's first "
               "version: (a) p = 2048, n = 512, |mu|^2 = 1; (b) n = 4096, gamma = 1e-5, |mu|^2 = 1; (c) p = 512, "
               "n = 2048, gamma = 1e-5 and 1 (the caption quoted gives no ridge for (c)). Lines: deterministic "
               f"equivalent (symrmt.linear_error). Markers: Monte Carlo at {scale}, {CHEAP_SEEDS * s['seeds']} seeds in "
               f"(a) and (c), {s['seeds']} in (b), {INTERVAL_TEXT}; the points of a panel (a) or (c) curve share their "
               "draws, so their misses are not independent.")
    sizes = "the paper's n" if s["shrink"] == 1 else f"n / {s['shrink']}"
    return Figure("paper_fig1", "paper_fig1", caption, panels,
                  mc_label=f", {sizes}, {CHEAP_SEEDS * s['seeds']} or {s['seeds']} seeds")
