r"""The linear Hermite component: with :math:`a_1 = 0` the limit of attention cannot use the signal.

The family :math:`f_s(x) = \cos(s)\,x + \sin(s)\,\mathrm{He}_3(x)/\sqrt 6` has
:math:`a_1 = \cos s` and :math:`\nu = 1` for every :math:`s` (the two terms are orthonormal
Hermite polynomials), so it moves :math:`a_1` from 1 to 0 at a fixed scale. With
:math:`a_1 = 0` (and :math:`d = 0`) the low-rank part of the Gaussian equivalent,
proportional to :math:`a_1`, vanishes and :math:`K \simeq b W/\sqrt p` is a Wigner
matrix independent of the labels: panel (a) shows that :math:`E_\mathrm{attn}` is then flat
in :math:`\|\mu\|^2`, panel (b) that more dimensions per token (larger :math:`c`) lower it
far less than for :math:`a_1 > 0`, and panel (c) the error against :math:`a_1`. All of this is
the limit :math:`n \to \infty` at fixed :math:`\|\mu\|`: the finite model does use a strong
signal (the signal enters at order :math:`\theta/\sqrt n` through the higher Hermite terms), so
panel (d) follows :math:`a_1 = 0` with and without signal over a ladder of sizes to
:math:`n = \infty`.
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from .convergence import convergence_panel, ladder_sentence, run_ladder
from .figure import INTERVAL_TEXT, Figure, Panel, progress
from .series import LINEAR_STYLE, mc_curve, mc_over_gamma, n_label, theory_curve

GAMMA = 0.1
C_FIXED = 1.0
A1_VALUES = (1.0, 0.7, 0.4, 0.0)
COLORS = ("C0", "C2", "C1", "C3")
W_NORM = 1.0
#: The signal strengths of the convergence panel (a_1 = 0): none, and the strongest of panel (a).
LADDER_THETAS = (4.0, 0.0)


def f_family(a1: float):
    r"""The vectorized :math:`f_s` with :math:`\cos s = a_1`: :math:`a_1 x + \sqrt{1 - a_1^2}\,(x^3 - 3x)/\sqrt 6`."""
    cubic = float(np.sqrt(max(1.0 - a1 * a1, 0.0)) / np.sqrt(6.0))

    def f(x: np.ndarray) -> np.ndarray:
        return a1 * x + cubic * (x * x * x - 3.0 * x)

    f.__name__ = f"f_a1_{a1:g}"
    return f


def _label(a1: float) -> str:
    return f"a1*x + sqrt(1-a1^2)*(x^3-3x)/sqrt(6), a1={a1:g}"


def _geometry(theta: float):
    # Aligned weights w = W_NORM mu/|mu|: the most favourable case for attention.
    mu = float(np.sqrt(theta))
    return Geometry(mu_norm=mu, wk_norm=W_NORM, wq_norm=W_NORM, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)


def _gram(theta) -> dict:
    mu = np.sqrt(theta)
    return dict(theta=theta, alpha_K=W_NORM * mu, alpha_Q=W_NORM * mu, omega_KK=W_NORM**2, omega_QQ=W_NORM**2,
                omega_KQ=W_NORM**2)


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, theta_mc=[0.0, 1.0, 3.0], c_mc=[0.5, 1.0, 2.0], a1_mc=[0.0, 0.5, 1.0], points=30)
    return dict(n=2048, seeds=8, theta_mc=[0.0, 0.5, 1.0, 2.0, 3.0, 4.0], c_mc=[0.25, 0.5, 1.0, 1.5, 2.0, 3.0],
                a1_mc=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0], points=120)


def _mc_points(a1: float, s: dict, points, c_of, theta_of, label: str):
    runs = [mc_over_gamma(f_family(a1), s["n"], c_of(v), [GAMMA], _geometry(theta_of(v)), seeds=s["seeds"])
            for v in progress(points, label)]
    return runs


def _theta_panel(s: dict) -> Panel:
    theta = np.linspace(0.0, 4.0, s["points"])
    curves = []
    for a1, color in zip(A1_VALUES, COLORS):
        tag = {"f": _label(a1), "a1": a1, "nu": 1.0, "d": 0.0, "c": C_FIXED, "gamma": GAMMA, "w_norm": W_NORM}
        curves.append(theory_curve(rf"$a_1 = {a1:g}$", "E_attn", "theta", {**tag, "theta": theta},
                                   symrmt.attention_error((a1, 1.0), C_FIXED, GAMMA, gram=_gram(theta)),
                                   {"color": color}))
        runs = _mc_points(a1, s, s["theta_mc"], lambda v: C_FIXED, lambda v: v, f"a1={a1:g} over |mu|^2")
        theta_mc = np.array(s["theta_mc"])
        curves.append(mc_curve(rf"$a_1 = {a1:g}$", "E_attn", "theta",
                               {**tag, "theta": theta_mc, "n": s["n"], "seeds": s["seeds"]},
                               [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs], {"color": color},
                               theory=symrmt.attention_error((a1, 1.0), C_FIXED, GAMMA, gram=_gram(theta_mc))))
    lin = {"f": "linear regression", "c": C_FIXED, "gamma": GAMMA}
    curves.append(theory_curve("linear regression", "E_lin", "theta", {**lin, "theta": theta},
                               symrmt.linear_error(C_FIXED, GAMMA, gram=_gram(theta)), LINEAR_STYLE))
    curves.append(mc_curve("linear regression", "E_lin", "theta", {**lin, "theta": theta_mc, "n": s["n"],
                                                                   "seeds": s["seeds"]},
                           [r.linear_mean[0] for r in runs], [r.linear_se[0] for r in runs], LINEAR_STYLE,
                           theory=symrmt.linear_error(C_FIXED, GAMMA, gram=_gram(theta_mc))))
    return Panel("a", rf"(a) more signal, $c = {C_FIXED:g}$", curves, r"signal strength $\|\mu\|^2$",
                 r"interpolation error $E(\gamma)$", ylim=(-0.02, 1.02), dodge=0.01)


def _c_panel(s: dict) -> Panel:
    theta = 1.0
    c = np.geomspace(0.2, 4.0, s["points"])
    curves = []
    for a1, color in zip(A1_VALUES, COLORS):
        tag = {"f": _label(a1), "a1": a1, "nu": 1.0, "d": 0.0, "theta": theta, "gamma": GAMMA, "w_norm": W_NORM}
        curves.append(theory_curve(rf"$a_1 = {a1:g}$", "E_attn", "c", {**tag, "c": c},
                                   symrmt.attention_error((a1, 1.0), c, GAMMA, gram=_gram(theta)), {"color": color}))
        runs = _mc_points(a1, s, s["c_mc"], lambda v: v, lambda v: theta, f"a1={a1:g} over c")
        c_mc = np.array(s["c_mc"])
        curves.append(mc_curve(rf"$a_1 = {a1:g}$", "E_attn", "c", {**tag, "c": c_mc, "n": s["n"], "seeds": s["seeds"]},
                               [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs], {"color": color},
                               theory=symrmt.attention_error((a1, 1.0), c_mc, GAMMA, gram=_gram(theta))))
    for other, style in ((0.0, ":"), (4.0, "-.")):
        # a_1 = 0 at other signal strengths: the same curve (drawn over the one above).
        tag = {"f": _label(0.0), "a1": 0.0, "nu": 1.0, "d": 0.0, "theta": other, "gamma": GAMMA, "w_norm": W_NORM}
        curves.append(theory_curve(rf"$a_1 = 0$, $\|\mu\|^2 = {other:g}$", "E_attn", "c", {**tag, "c": c},
                                   symrmt.attention_error((0.0, 1.0), c, GAMMA, gram=_gram(other)),
                                   {"color": "k", "linestyle": style, "linewidth": 1.0}))
    lin = {"f": "linear regression", "theta": theta, "gamma": GAMMA}
    curves.append(theory_curve("linear regression", "E_lin", "c", {**lin, "c": c},
                               symrmt.linear_error(c, GAMMA, gram=_gram(theta)), LINEAR_STYLE))
    return Panel("b", rf"(b) more dimensions, $\|\mu\|^2 = {theta:g}$", curves, r"$c = p/n$",
                 r"interpolation error $E(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.02,
                 xticks=(0.2, 0.5, 1, 2, 4))


def _a1_panel(s: dict) -> Panel:
    a1 = np.linspace(0.0, 1.0, s["points"])
    curves = []
    for theta, color in ((0.0, "0.4"), (1.0, "C0"), (4.0, "C4")):
        tag = {"f": "a1*x + sqrt(1-a1^2)*(x^3-3x)/sqrt(6)", "nu": 1.0, "d": 0.0, "c": C_FIXED, "gamma": GAMMA,
               "theta": theta, "w_norm": W_NORM}
        curves.append(theory_curve(rf"$\|\mu\|^2 = {theta:g}$", "E_attn", "a1", {**tag, "a1": a1},
                                   symrmt.attention_error({"a1": a1, "nu": np.ones_like(a1)}, C_FIXED, GAMMA,
                                                          gram=_gram(theta)),
                                   {"color": color}))
        runs = [mc_over_gamma(f_family(v), s["n"], C_FIXED, [GAMMA], _geometry(theta), seeds=s["seeds"])
                for v in progress(s["a1_mc"], f"|mu|^2={theta:g} over a1")]
        a1_mc = np.array(s["a1_mc"])
        curves.append(mc_curve(rf"$\|\mu\|^2 = {theta:g}$", "E_attn", "a1",
                               {**tag, "a1": a1_mc, "n": s["n"], "seeds": s["seeds"]},
                               [r.attention_mean[0] for r in runs], [r.attention_se[0] for r in runs], {"color": color},
                               theory=symrmt.attention_error({"a1": a1_mc, "nu": np.ones_like(a1_mc)}, C_FIXED,
                                                             GAMMA, gram=_gram(theta))))
    return Panel("c", rf"(c) against $a_1$ ($\nu = 1$), $c = {C_FIXED:g}$", curves, r"linear coefficient $a_1$",
                 r"interpolation error $E_\mathrm{attn}(\gamma)$", ylim=(-0.02, 1.02), dodge=0.01)


def _ladder_panel(s: dict, quick: bool) -> tuple[Panel, str]:
    """Panel (d): a_1 = 0 over a ladder of sizes, with the strongest signal of (a) and without signal."""
    f = f_family(0.0)
    ladders, sentences = [], []
    for theta, color in zip(LADDER_THETAS, ("C3", "0.4")):
        result = run_ladder(f, C_FIXED, GAMMA, geometry=_geometry(theta), quick=quick)
        tag = {"f": _label(0.0), "a1": 0.0, "nu": 1.0, "d": 0.0, "c": C_FIXED, "theta": theta, "w_norm": W_NORM}
        ladders.append((result, rf"$\|\mu\|^2 = {theta:g}$", tag, color))
        sentences.append(ladder_sentence(result, "attention", f"E_attn (|mu|^2 = {theta:g})", s["n"],
                                         None if sentences else "d"))
    panel = convergence_panel("d", rf"(d) finite n: $a_1 = 0$, $c = {C_FIXED:g}$, $\gamma = {GAMMA:g}$", ladders,
                              "attention", "E_attn", r"interpolation error $E_\mathrm{attn}(\gamma)$", s["n"])
    return panel, " ".join(sentences)


def build(quick: bool = False, **overrides) -> Figure:
    s = {**_sizes(quick), **overrides}
    ladder, sentence = _ladder_panel(s, quick)
    panels = [_theta_panel(s), _c_panel(s), _a1_panel(s), ladder]
    caption = ("f = a1 x + sqrt(1 - a1^2) (x^3 - 3x)/sqrt(6) (Hermite data a_1 = a1, nu = 1), d = 0, "
               f"ridge gamma = {GAMMA:g}, weights aligned with the signal, w_K = w_Q = {W_NORM:g} mu/|mu|. In (b) the "
               "a_1 = 0 curves for |mu|^2 = 0 and 4 (dotted, dash-dotted) lie on the one for |mu|^2 = 1. Lines: "
               f"deterministic equivalents; markers: Monte Carlo, n = {s['n']}, p = round(c n), {s['seeds']} seeds, "
               f"{INTERVAL_TEXT}. {sentence}")
    return Figure("linear_component", "", caption, panels, mc_label=n_label(s["n"], s["seeds"]), ncols=2)
