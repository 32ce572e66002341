r"""Signal and attention weights: :math:`E_\mathrm{attn}` as :math:`w_K = w_Q = w` turns away from :math:`\mu`.

With :math:`\|\mu\| = 1` and :math:`w` at angle :math:`\varphi` to :math:`\mu`
(:math:`\cos\varphi = \mu^\top w / \|\mu\|\|w\|`), the low-rank part of the attention matrix
carries :math:`\alpha_K = \alpha_Q = \|w\|\cos\varphi`. Linear regression does not see
:math:`w` at all (a flat reference line). The claim and its region are
``CLAIMS["alignment"]`` (:mod:`symrmt.figures.claims`). At small :math:`c` the finite model is
far from the limit (at n = 256 the simulated gap has the opposite sign), so panel (d) carries
the Monte Carlo of the aligned gap at :math:`c = 0.25` over a ladder of sizes to :math:`n = \infty`.
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from .convergence import convergence_panel, ladder_sentence, run_ladder
from .figure import INTERVAL_TEXT, Figure, Panel, progress
from .nonlinearities import FigureF, figure_f
from .series import LINEAR_STYLE, mc_curve, mc_gap, mc_over_gamma, n_label, theory_curve

MU_NORM = 1.0
GAMMA = 0.1
C_FIXED = 1.0
GAP_CS = (0.25, 0.5, 1.0, 2.0)
GAP_COLORS = ("C2", "C1", "C3", "C4")
W_NORMS = (1.0, 2.0)
COLORS = {1.0: "C0", 2.0: "C3"}
#: The setting of the convergence panel: the smallest c of panel (b), aligned, the larger |w|.
LADDER_C = 0.25


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, angles_mc=[0.0, 45.0, 90.0], points=31, gammas_mc=[0.01, 0.1, 1.0])
    return dict(n=2048, seeds=8, angles_mc=[0.0, 22.5, 45.0, 67.5, 90.0], points=91,
                gammas_mc=list(np.logspace(-2, 1, 7)))


def _geometry(w: float, angle_deg: float):
    u = float(np.cos(np.radians(angle_deg)))
    return Geometry(mu_norm=MU_NORM, wk_norm=w, wq_norm=w, cos_mu_wk=u, cos_mu_wq=u, cos_wk_wq=1.0)


def _signal_only():
    """The geometry linear regression sees: the signal; the weights do not enter it."""
    return Geometry(mu_norm=MU_NORM)


def _gram(w: float, angle_deg: np.ndarray) -> dict:
    u = np.cos(np.radians(angle_deg))
    return dict(theta=MU_NORM**2, alpha_K=MU_NORM * w * u, alpha_Q=MU_NORM * w * u,
                omega_KK=w * w, omega_QQ=w * w, omega_KQ=w * w)


def _base(f: FigureF, c: float) -> dict:
    return {**f.tags(), "d": 0.0, "c": c, "theta": MU_NORM**2}


def _angle_panel(key: str, c: float, f: FigureF, s: dict) -> Panel:
    h = f.h
    angles = np.linspace(0.0, 90.0, s["points"])
    mc_angles = np.array(s["angles_mc"])
    base = {**_base(f, c), "gamma": GAMMA}
    mc_tag = {"n": s["n"], "seeds": s["seeds"], "angle_deg": mc_angles, "cos_mu_w": np.cos(np.radians(mc_angles))}
    curves = []
    for w in W_NORMS:
        series = rf"attention, $\|w\| = {w:g}$"
        params = {**base, "w_norm": w, "angle_deg": angles, "cos_mu_w": np.cos(np.radians(angles))}
        curves.append(theory_curve(series, "E_attn", "angle_deg", params,
                                   symrmt.attention_error(h, c, GAMMA, gram=_gram(w, angles)), {"color": COLORS[w]}))
        runs = [mc_over_gamma(h.f, s["n"], c, [GAMMA], _geometry(w, a), seeds=s["seeds"])
                for a in progress(s["angles_mc"], f"alignment c={c:g} |w|={w:g}")]
        curves.append(mc_curve(series, "E_attn", "angle_deg", {**base, **mc_tag, "w_norm": w},
                               [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs],
                               {"color": COLORS[w]},
                               theory=symrmt.attention_error(h, c, GAMMA, gram=_gram(w, mc_angles))))
    lin = {**base, "f": "linear regression", "angle_deg": angles}
    series = "linear regression (does not see w)"
    curves.append(theory_curve(series, "E_lin", "angle_deg", lin,
                               np.broadcast_to(symrmt.linear_error(c, GAMMA, _signal_only()), angles.shape),
                               LINEAR_STYLE))
    curves.append(mc_curve(series, "E_lin", "angle_deg", {**lin, **mc_tag},
                           [r.linear_mean[0] for r in runs], [r.linear_se[0] for r in runs], LINEAR_STYLE,
                           theory=np.broadcast_to(symrmt.linear_error(c, GAMMA, _signal_only()), mc_angles.shape)))
    return Panel(key, rf"({key}) $c = {c:g}$, $\gamma = {GAMMA:g}$, $\|\mu\| = {MU_NORM:g}$", curves,
                 r"angle between $w_K = w_Q = w$ and $\mu$ (degrees; 0 = aligned)",
                 r"interpolation error $E(\gamma)$", dodge=0.01)


def _gap_panel(key: str, f: FigureF, s: dict) -> Panel:
    h = f.h
    angles = np.linspace(0.0, 90.0, s["points"])
    mc_angles = np.array(s["angles_mc"])
    w = max(W_NORMS)
    curves = []
    for c, color in zip(GAP_CS, GAP_COLORS):
        base = {**_base(f, c), "gamma": GAMMA, "w_norm": w}
        series = rf"$c = {c:g}$"
        gap = (symrmt.attention_error(h, c, GAMMA, gram=_gram(w, angles))
               - symrmt.linear_error(c, GAMMA, gram=_gram(w, angles)))
        curves.append(theory_curve(series, "E_attn - E_lin", "angle_deg",
                                   {**base, "angle_deg": angles, "cos_mu_w": np.cos(np.radians(angles))},
                                   gap, {"color": color}))
        runs = [mc_gap(mc_over_gamma(h.f, s["n"], c, [GAMMA], _geometry(w, a), seeds=s["seeds"]))
                for a in progress(mc_angles, f"alignment gap c={c:g}")]
        theory = (symrmt.attention_error(h, c, GAMMA, gram=_gram(w, mc_angles))
                  - symrmt.linear_error(c, GAMMA, gram=_gram(w, mc_angles)))
        curves.append(mc_curve(series, "E_attn - E_lin", "angle_deg",
                               {**base, "angle_deg": mc_angles, "cos_mu_w": np.cos(np.radians(mc_angles)),
                                "n": s["n"], "seeds": s["seeds"]},
                               [m for m, _ in runs], [e for _, e in runs], {"color": color}, theory=theory))
    return Panel(key, rf"({key}) the gap, paired over seeds, $\|w\| = {w:g}$, $\gamma = {GAMMA:g}$", curves,
                 r"angle between $w$ and $\mu$ (degrees; 0 = aligned)", r"$E_\mathrm{attn} - E_\mathrm{lin}$",
                 dodge=0.006, extra=[{"x": [0, 90], "y": [0, 0], "color": "k", "ls": "-"}])


def _gamma_panel(key: str, c: float, f: FigureF, s: dict) -> Panel:
    h = f.h
    gamma = np.logspace(-3, 2, s["points"] + 9)
    w = max(W_NORMS)
    curves = []
    for angle, color, name in ((0.0, "C3", "aligned"), (90.0, "C0", "orthogonal")):
        base = {**_base(f, c), "w_norm": w, "angle_deg": angle, "cos_mu_w": float(np.cos(np.radians(angle)))}
        series = rf"attention, {name} ($\|w\| = {w:g}$)"
        curves.append(theory_curve(series, "E_attn", "gamma", {**base, "gamma": gamma},
                                   symrmt.attention_error(h, c, gamma, _geometry(w, angle)), {"color": color}))
        mc = mc_over_gamma(h.f, s["n"], c, s["gammas_mc"], _geometry(w, angle), seeds=s["seeds"])
        curves.append(mc_curve(series, "E_attn", "gamma", {**base, "gamma": mc.gamma, "n": s["n"], "seeds": s["seeds"]},
                               mc.attention_mean, mc.attention_se, {"color": color},
                               theory=symrmt.attention_error(h, c, mc.gamma, _geometry(w, angle))))
    lin = {"f": "linear regression", "d": 0.0, "c": c, "theta": MU_NORM**2}
    series = "linear regression"
    curves.append(theory_curve(series, "E_lin", "gamma", {**lin, "gamma": gamma},
                               symrmt.linear_error(c, gamma, _signal_only()), LINEAR_STYLE))
    curves.append(mc_curve(series, "E_lin", "gamma", {**lin, "gamma": mc.gamma, "n": s["n"], "seeds": s["seeds"]},
                           mc.linear_mean, mc.linear_se, LINEAR_STYLE,
                           theory=symrmt.linear_error(c, mc.gamma, _signal_only())))
    return Panel(key, rf"({key}) against the ridge, $c = {c:g}$", curves, r"ridge $\gamma$",
                 r"interpolation error $E(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.03)


def _ladder(key: str, f: FigureF, s: dict, quick: bool):
    """Panel (d) and its caption sentence: the aligned gap at c = LADDER_C over a ladder of sizes."""
    w = max(W_NORMS)
    result = run_ladder(f.h.f, LADDER_C, GAMMA, geometry=_geometry(w, 0.0), quick=quick)
    tag = {**_base(f, LADDER_C), "w_norm": w, "angle_deg": 0.0, "cos_mu_w": 1.0}
    panel = convergence_panel(key, rf"({key}) finite n: the aligned gap at $c = {LADDER_C:g}$, $\|w\| = {w:g}$",
                              [(result, rf"$c = {LADDER_C:g}$, aligned", tag, GAP_COLORS[0])], "gap",
                              "E_attn - E_lin", r"$E_\mathrm{attn} - E_\mathrm{lin}$ (paired)", s["n"])
    panel.extra.append({"x": [-1.0, 1.0], "y": [0.0, 0.0], "color": "k", "ls": "-"})
    return panel, ladder_sentence(result, "gap", "gap", s["n"], key)


def build(quick: bool = False, f: FigureF | None = None, **overrides) -> Figure:
    """The figure; ``f``: its nonlinearity (default tanh, :func:`~symrmt.figures.nonlinearities.figure_f`)."""
    s = {**_sizes(quick), **overrides}
    f = f or figure_f()
    ladder, sentence = _ladder("d", f, s, quick)
    panels = [_angle_panel("a", C_FIXED, f, s), _gap_panel("b", f, s), _gamma_panel("c", C_FIXED, f, s), ladder]
    caption = (f"f = {f.text}, d = 0, |mu| = {MU_NORM:g}, W_K^T W_Q = I + w w^T with w at "
               f"the given angle to mu. Lines: deterministic equivalents; markers: Monte Carlo, n = {s['n']}, "
               f"p = round(c n), {s['seeds']} seeds, {INTERVAL_TEXT}; the gap (b, d) is paired over seeds. {sentence}")
    return Figure("alignment", "", caption, panels, mc_label=n_label(s["n"], s["seeds"]), ncols=2)
