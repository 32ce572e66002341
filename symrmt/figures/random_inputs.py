r"""Pure-noise inputs (:math:`\mu = 0`, :math:`w_K = w_Q = 0`): nonlinear attention against linear regression.

Panel (a): :math:`E_\mathrm{attn}(\gamma)` for six centred nonlinearities and
:math:`E_\mathrm{lin}(\gamma)` at :math:`c = 1`. Panel (b): the same against
:math:`c = p/n` at a fixed ridge. Panel (c): the map of :math:`E_\mathrm{attn} - E_\mathrm{lin}`
over :math:`(c, \gamma)` for tanh, with the zero line of every nonlinearity: the paper's
claim that attention interpolates worse on random inputs holds for :math:`c \ge 1` and fails
at small :math:`c` and large :math:`\gamma` (:data:`symrmt.figures.claims.CLAIMS`), for each f as
written: :math:`E_\mathrm{attn}(\varsigma f, \gamma) = E_\mathrm{attn}(f, \gamma/\varsigma^2)` while :math:`E_\mathrm{lin}`
does not move, so the region depends on the scale of f (``CLAIMS["scale_law"]``). At large
:math:`\gamma`, :math:`E(\gamma) = 1 - 2 m_1/\gamma + O(\gamma^{-2})` with
:math:`m_1 = y^\top K^\top C K y/n`, which for attention keeps a share :math:`b^2` of the
kernel's nonlinear part even when :math:`c \to 0`, while linear regression has :math:`m_1 = c`.
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .figure import INTERVAL_TEXT, Figure, Panel, progress
from .nonlinearities import ZOO
from .series import LINEAR_STYLE, mc_curve, mc_gap, mc_over_gamma, n_label, theory_curve

C_FIXED = 1.0
GAMMA_FIXED = 0.1
#: The map of panel (c): c and gamma ranges (gamma >= 0.01, where the quadrature is accurate at every c).
MAP_C = (0.05, 3.0)
MAP_GAMMA = (1e-2, 1e2)
MAP_F = "tanh"


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, gamma_mc=[1e-2, 1e-1, 1.0, 10.0], c_mc=[0.5, 1.0, 2.0], points=40, grid=16,
                    checks=[(0.15, 1.0), (0.3, 10.0), (1.0, 1.0)])
    return dict(n=2048, seeds=8, gamma_mc=list(np.logspace(-2, 1, 7)), c_mc=[0.25, 0.5, 1.0, 1.5, 2.0, 3.0],
                points=150, grid=30, checks=[(0.1, 0.1), (0.15, 1.0), (0.3, 10.0), (0.5, 30.0), (0.5, 0.1),
                                             (1.0, 1.0), (2.0, 10.0)])


def _curves_of(spec, s: dict, gamma: np.ndarray, c: np.ndarray):
    """Theory and Monte Carlo of one f against gamma (panel a) and against c (panel b)."""
    h = spec.hermite()
    tag = {"f": spec.name, "a1": h.a1, "nu": h.nu, "d": 0.0, "theta": 0.0}
    common = {"n": s["n"], "seeds": s["seeds"]}
    style = {"color": spec.color}
    mc = mc_over_gamma(h.f, s["n"], C_FIXED, s["gamma_mc"], seeds=s["seeds"])
    runs = [mc_over_gamma(h.f, s["n"], ci, [GAMMA_FIXED], seeds=s["seeds"]) for ci in s["c_mc"]]
    c_mc = np.array(s["c_mc"])
    by_gamma = [theory_curve(spec.name, "E_attn", "gamma", {**tag, "c": C_FIXED, "gamma": gamma},
                             symrmt.attention_error(h, C_FIXED, gamma), style),
                mc_curve(spec.name, "E_attn", "gamma", {**tag, **common, "c": C_FIXED, "gamma": mc.gamma},
                         mc.attention_mean, mc.attention_se, style,
                         theory=symrmt.attention_error(h, C_FIXED, mc.gamma))]
    by_c = [theory_curve(spec.name, "E_attn", "c", {**tag, "c": c, "gamma": GAMMA_FIXED},
                         symrmt.attention_error(h, c, GAMMA_FIXED), style),
            mc_curve(spec.name, "E_attn", "c", {**tag, **common, "c": c_mc, "gamma": GAMMA_FIXED},
                     [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs], style,
                     theory=symrmt.attention_error(h, c_mc, GAMMA_FIXED))]
    return by_gamma, by_c, mc, runs


def _linear_curves(s: dict, gamma: np.ndarray, c: np.ndarray, mc, runs):
    """E_lin: theory, and the simulator's E_lin of the last f's draws (it does not depend on f)."""
    lin = {"f": "linear regression", "theta": 0.0}
    common = {"n": s["n"], "seeds": s["seeds"]}
    c_mc = np.array(s["c_mc"])
    series = "linear regression"
    by_gamma = [theory_curve(series, "E_lin", "gamma", {**lin, "c": C_FIXED, "gamma": gamma},
                             symrmt.linear_error(C_FIXED, gamma), LINEAR_STYLE),
                mc_curve(series, "E_lin", "gamma", {**lin, **common, "c": C_FIXED, "gamma": mc.gamma},
                         mc.linear_mean, mc.linear_se, LINEAR_STYLE,
                         theory=symrmt.linear_error(C_FIXED, mc.gamma))]
    by_c = [theory_curve(series, "E_lin", "c", {**lin, "c": c, "gamma": GAMMA_FIXED},
                         symrmt.linear_error(c, GAMMA_FIXED), LINEAR_STYLE),
            mc_curve(series, "E_lin", "c", {**lin, **common, "c": c_mc, "gamma": GAMMA_FIXED},
                     [r.linear_mean[0] for r in runs], [r.linear_se[0] for r in runs], LINEAR_STYLE,
                     theory=symrmt.linear_error(c_mc, GAMMA_FIXED))]
    return by_gamma, by_c


def _region_panel(s: dict) -> Panel:
    """Panel (c): E_attn - E_lin over (c, gamma) for tanh, the zero line of each f, paired Monte Carlo checks."""
    c = np.geomspace(*MAP_C, s["grid"])[None, :]
    gamma = np.geomspace(*MAP_GAMMA, s["grid"])[:, None]
    lin = symrmt.linear_error(c, gamma)
    quantity = "E_attn - E_lin"
    curves = []
    for spec in ZOO.values():
        h = spec.hermite()
        tag = {"f": spec.name, "a1": h.a1, "nu": h.nu, "d": 0.0, "theta": 0.0, "c": c, "gamma": gamma}
        # The first curve is the coloured map; the others are drawn as their zero lines only.
        label = f"{spec.name}: zero line" if spec.name != MAP_F else None
        curves.append(theory_curve(label, quantity, "c", tag, symrmt.attention_error(h, c, gamma) - lin,
                                   {"color": spec.color}, series=spec.name))
    curves.sort(key=lambda curve: curve.series != MAP_F)
    h = ZOO[MAP_F].hermite()
    checks = np.array(s["checks"])
    gaps = [mc_gap(mc_over_gamma(h.f, s["n"], ci, [gi], seeds=s["seeds"]))
            for ci, gi in progress(s["checks"], "random_inputs region")]
    theory = symrmt.attention_error(h, checks[:, 0], checks[:, 1]) - symrmt.linear_error(checks[:, 0], checks[:, 1])
    curves.append(mc_curve(MAP_F, quantity, "c", {"f": MAP_F, "a1": h.a1, "nu": h.nu, "d": 0.0, "theta": 0.0,
                                                  "c": checks[:, 0], "gamma": checks[:, 1], "n": s["n"],
                                                  "seeds": s["seeds"]},
                           [m for m, _ in gaps], [e for _, e in gaps], {}, theory=theory,
                           label="Monte Carlo, paired over seeds"))
    return Panel("c", rf"(c) $E_\mathrm{{attn}} - E_\mathrm{{lin}}$ for {MAP_F}: blue = attention wins", curves,
                 r"$c = p/n$", r"ridge $\gamma$", xscale="log", yscale="log", heatmap=("c", "gamma"),
                 colorbar=rf"$E_\mathrm{{attn}} - E_\mathrm{{lin}}$ ({MAP_F})")


def build(quick: bool = False, **overrides) -> Figure:
    s = {**_sizes(quick), **overrides}
    gamma = np.logspace(-3, 2, s["points"])
    c = np.linspace(0.1, 3.0, s["points"])
    by_gamma, by_c = [], []
    for spec in progress(ZOO.values(), "random_inputs", total=len(ZOO)):
        curves_gamma, curves_c, mc, runs = _curves_of(spec, s, gamma, c)
        by_gamma += curves_gamma
        by_c += curves_c
    lin_gamma, lin_c = _linear_curves(s, gamma, c, mc, runs)
    panels = [
        Panel("a", rf"(a) against the ridge, $c = {C_FIXED:g}$", by_gamma + lin_gamma, r"ridge $\gamma$",
              r"interpolation error $E(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.03),
        Panel("b", rf"(b) against $c = p/n$, $\gamma = {GAMMA_FIXED:g}$", by_c + lin_c, r"$c = p/n$",
              r"interpolation error $E(\gamma)$", ylim=(-0.02, 1.02), dodge=0.008),
        _region_panel(s),
    ]
    caption = ("Pure noise: X = Z, mu = 0, w_K = w_Q = 0, K_ii = d = 0, K_ij = f(S_ij)/sqrt(p), "
               "f centred (a_0 = 0). Lines and map: deterministic equivalents (panel c: coloured for tanh, the zero "
               "line of every f; hatched where tanh attention wins). Markers: Monte Carlo of the finite model, "
               f"n = {s['n']}, p = round(c n), {s['seeds']} seeds, {INTERVAL_TEXT} (offset slightly in x for "
               "legibility); in (c) the paired difference E_attn - E_lin of the same draws, labelled mean ± half "
               "the 95% interval.")
    return Figure("random_inputs", "", caption, panels, mc_label=n_label(s["n"], s["seeds"]))
