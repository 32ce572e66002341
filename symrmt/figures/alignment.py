r"""Signal and attention weights: :math:`E_\mathrm{attn}` as :math:`w_K = w_Q = w` turns away from :math:`\mu`.

With :math:`\|\mu\| = 1` and :math:`w` at angle :math:`\varphi` to :math:`\mu`
(:math:`\cos\varphi = \mu^\top w / \|\mu\|\|w\|`), the low-rank part of the attention matrix
carries :math:`\alpha_K = \alpha_Q = \|w\|\cos\varphi`. Linear regression does not see
:math:`w` at all (a flat reference line). The paper's claim: the gap between attention and
linear regression shrinks as the weights align with the signal; here it closes (and
reverses) only when :math:`c` is small, while at :math:`c = 1` it shrinks by about a fifth.
"""
from __future__ import annotations

import numpy as np

from ..geometry import Geometry
from ._common import LINEAR_STYLE, mc_curve, mc_over_gamma, n_label, nonlinearity, theory_curve
from ._core import Figure, Panel, progress

MU_NORM = 1.0
GAMMA = 0.1
C_FIXED = 1.0
GAP_CS = (0.25, 0.5, 1.0, 2.0)
GAP_COLORS = ("C2", "C1", "C3", "C4")
W_NORMS = (1.0, 2.0)
COLORS = {1.0: "C0", 2.0: "C3"}


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, angles_mc=[0.0, 45.0, 90.0], points=31, gammas_mc=[0.01, 0.1, 1.0])
    return dict(n=2048, seeds=8, angles_mc=[0.0, 22.5, 45.0, 67.5, 90.0], points=91,
                gammas_mc=list(np.logspace(-2, 1, 7)))


def _geometry(w: float, angle_deg: float) -> Geometry:
    u = float(np.cos(np.radians(angle_deg)))
    return Geometry(mu_norm=MU_NORM, wk_norm=w, wq_norm=w, cos_mu_wk=u, cos_mu_wq=u, cos_wk_wq=1.0)


def _gram(w: float, angle_deg: np.ndarray) -> dict:
    u = np.cos(np.radians(angle_deg))
    return dict(theta=MU_NORM**2, alpha_K=MU_NORM * w * u, alpha_Q=MU_NORM * w * u,
                omega_KK=w * w, omega_QQ=w * w, omega_KQ=w * w)


def _angle_panel(key: str, c: float, h, s: dict) -> Panel:
    from ..theory import attention_error, linear_error

    angles = np.linspace(0.0, 90.0, s["points"])
    base = {"f": "tanh", "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "gamma": GAMMA, "theta": MU_NORM**2}
    curves = []
    for w in W_NORMS:
        params = {**base, "w_norm": w, "angle_deg": angles, "cos_mu_w": np.cos(np.radians(angles))}
        curves.append(theory_curve(rf"attention, $\|w\| = {w:g}$", "E_attn", "angle_deg", params,
                                   attention_error(h, c, GAMMA, gram=_gram(w, angles)), {"color": COLORS[w]}))
        runs = [mc_over_gamma(h.f, s["n"], c, [GAMMA], _geometry(w, a), seeds=s["seeds"])
                for a in progress(s["angles_mc"], f"alignment c={c:g} |w|={w:g}")]
        mc_angles = np.array(s["angles_mc"])
        curves.append(mc_curve(None, "E_attn", "angle_deg",
                               {**base, "w_norm": w, "angle_deg": mc_angles, "cos_mu_w": np.cos(np.radians(mc_angles)),
                                "n": s["n"], "seeds": s["seeds"]},
                               [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs],
                               {"color": COLORS[w]}))
    lin = {**base, "f": "linear regression", "angle_deg": angles}
    curves.append(theory_curve("linear regression (does not see w)", "E_lin", "angle_deg", lin,
                               np.broadcast_to(linear_error(c, GAMMA, Geometry(mu_norm=MU_NORM)), angles.shape),
                               LINEAR_STYLE))
    curves.append(mc_curve(None, "E_lin", "angle_deg", {**lin, "angle_deg": mc_angles, "n": s["n"], "seeds": s["seeds"]},
                           [r.linear_mean[0] for r in runs], [r.linear_se[0] for r in runs], LINEAR_STYLE))
    return Panel(key, rf"({key}) $c = {c:g}$, $\gamma = {GAMMA:g}$, $\|\mu\| = {MU_NORM:g}$", curves,
                 r"angle between $w_K = w_Q = w$ and $\mu$ (degrees; 0 = aligned)",
                 r"interpolation error $E(\gamma)$", dodge=0.01)


def _paired_gap(run) -> tuple[float, float]:
    """Mean and standard error of E_attn - E_lin over seeds (both errors come from the same draws)."""
    gap = run.attention_per_seed[:, 0] - run.linear_per_seed[:, 0]
    return float(gap.mean()), float(gap.std(ddof=1) / np.sqrt(gap.size))


def _gap_panel(key: str, h, s: dict) -> Panel:
    from ..theory import attention_error, linear_error

    angles = np.linspace(0.0, 90.0, s["points"])
    mc_angles = np.array(s["angles_mc"])
    w = max(W_NORMS)
    curves = []
    for c, color in zip(GAP_CS, GAP_COLORS):
        base = {"f": "tanh", "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "gamma": GAMMA, "theta": MU_NORM**2,
                "w_norm": w}
        gap = attention_error(h, c, GAMMA, gram=_gram(w, angles)) - linear_error(c, GAMMA, gram=_gram(w, angles))
        curves.append(theory_curve(rf"$c = {c:g}$", "E_attn - E_lin", "angle_deg",
                                   {**base, "angle_deg": angles, "cos_mu_w": np.cos(np.radians(angles))},
                                   gap, {"color": color}))
        runs = [_paired_gap(mc_over_gamma(h.f, s["n"], c, [GAMMA], _geometry(w, a), seeds=s["seeds"]))
                for a in progress(mc_angles, f"alignment gap c={c:g}")]
        curves.append(mc_curve(None, "E_attn - E_lin", "angle_deg",
                               {**base, "angle_deg": mc_angles, "cos_mu_w": np.cos(np.radians(mc_angles)),
                                "n": s["n"], "seeds": s["seeds"]},
                               [m for m, _ in runs], [e for _, e in runs], {"color": color}))
    return Panel(key, rf"({key}) the gap, $\|w\| = {w:g}$, $\gamma = {GAMMA:g}$", curves,
                 r"angle between $w$ and $\mu$ (degrees; 0 = aligned)", r"$E_\mathrm{attn} - E_\mathrm{lin}$",
                 dodge=0.006, extra=[{"x": [0, 90], "y": [0, 0], "color": "k", "ls": "-"}], legend_loc="upper left",
                 headroom=0.45)


def _gamma_panel(key: str, c: float, h, s: dict) -> Panel:
    from ..theory import attention_error, linear_error

    gamma = np.logspace(-3, 2, s["points"] + 9)
    w = max(W_NORMS)
    curves = []
    for angle, color, name in ((0.0, "C3", "aligned"), (90.0, "C0", "orthogonal")):
        base = {"f": "tanh", "a1": h.a1, "nu": h.nu, "d": 0.0, "c": c, "theta": MU_NORM**2, "w_norm": w,
                "angle_deg": angle, "cos_mu_w": float(np.cos(np.radians(angle)))}
        curves.append(theory_curve(rf"attention, {name} ($\|w\| = {w:g}$)", "E_attn", "gamma", {**base, "gamma": gamma},
                                   attention_error(h, c, gamma, _geometry(w, angle)), {"color": color}))
        mc = mc_over_gamma(h.f, s["n"], c, s["gammas_mc"], _geometry(w, angle), seeds=s["seeds"])
        curves.append(mc_curve(None, "E_attn", "gamma", {**base, "gamma": mc.gamma, "n": s["n"], "seeds": s["seeds"]},
                               mc.attention_mean, mc.attention_se, {"color": color}))
    lin = {"f": "linear regression", "d": 0.0, "c": c, "theta": MU_NORM**2}
    curves.append(theory_curve("linear regression", "E_lin", "gamma", {**lin, "gamma": gamma},
                               linear_error(c, gamma, Geometry(mu_norm=MU_NORM)), LINEAR_STYLE))
    curves.append(mc_curve(None, "E_lin", "gamma", {**lin, "gamma": mc.gamma, "n": s["n"], "seeds": s["seeds"]},
                           mc.linear_mean, mc.linear_se, LINEAR_STYLE))
    return Panel(key, rf"({key}) against the ridge, $c = {c:g}$", curves, r"ridge $\gamma$",
                 r"interpolation error $E(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.03,
                 legend_loc="upper left")


def build(quick: bool = False, **overrides) -> Figure:
    s = {**_sizes(quick), **overrides}
    h = nonlinearity("tanh").hermite()
    panels = [_angle_panel("a", C_FIXED, h, s), _gap_panel("b", h, s), _gamma_panel("c", C_FIXED, h, s)]
    caption = (f"f = tanh, d = 0, signal |mu| = {MU_NORM:g}, attention weights W_K^T W_Q = I + w w^T with w at the "
               f"given angle to mu. Lines: deterministic equivalents; markers: Monte Carlo, n = {s['n']}, "
               f"p = round(c n), {s['seeds']} seeds, bars ±2 standard errors. Aligning w with mu lowers E_attn "
               "towards E_lin; the gap (panel b, paired over seeds) shrinks with alignment at every c and closes only at "
               "small c; beyond |w| ~ 2 the effect saturates. With aligned weights the finite-n Monte Carlo lies below "
               "the theory (the equivalent is first order in the low-rank part; the gap shrinks like 1/n, see the "
               "validation figure). At large ridge, aligned attention even beats linear "
               "regression (panel c).")
    return Figure("alignment", "Aligned attention weights close part of the gap to linear regression", caption,
                  panels, mc_label=n_label(s["n"], s["seeds"]))
