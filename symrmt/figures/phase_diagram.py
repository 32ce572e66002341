r"""Phase diagram: the sign of :math:`E_\mathrm{attn} - E_\mathrm{lin}` at a fixed small ridge.

Panel (a) maps the difference over :math:`(c, \|\mu\|^2)` with the weights aligned with the
signal (:math:`w_K = w_Q = \rho\,\mu/\|\mu\|`); panel (b) over :math:`(\|\mu\|^2, \cos\angle(w, \mu))`
at a fixed small :math:`c`. The colour scale is symmetric about 0, so that blue (attention wins)
and red (it loses) of equal depth are differences of equal size; the region where attention
wins is also hatched, since its differences are a hundred times smaller than the losses. Each
map is one vectorized theory call; a few points are checked by Monte Carlo (circles coloured
by the simulated difference, labelled with the seed-paired mean and half its 95% t interval).
Panel (c) cuts map (a) at one :math:`\|\mu\|^2` with Monte Carlo error bars. Where attention
wins, the finite model wins by far more than the limit says (at n = 3000 by about 0.02 instead
of 0.002), so panel (d) carries the gap at one such point over a ladder of sizes to
:math:`n = \infty`.
"""
from __future__ import annotations

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from .convergence import convergence_panel, ladder_sentence, run_ladder
from .figure import INTERVAL_TEXT, Figure, Panel, progress
from .nonlinearities import FigureF, figure_f
from .series import mc_curve, mc_gap, mc_over_gamma, n_label, theory_curve

GAMMA = 0.1
W_NORM = 2.0
C_FIXED = 0.2
THETA_CUT = 0.25
#: The point of the convergence panel: inside the region where attention wins, aligned weights.
LADDER_POINT = (0.15, 1.0)


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=400, seeds=3, grid=24,
                    checks_a=[(0.1, 0.25), (0.5, 1.0), (2.0, 2.0)], checks_b=[(0.5, 0.95), (2.0, 0.2)],
                    cut_mc=[0.1, 0.3, 1.0])
    return dict(n=3000, seeds=8, grid=80,
                checks_a=[(0.08, 0.25), (0.15, 1.0), (0.3, 0.25), (0.5, 1.0), (1.0, 0.5), (2.0, 2.0)],
                checks_b=[(0.5, 0.95), (1.0, 0.95), (2.0, 0.2), (0.5, 0.5)],
                cut_mc=[0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0])


def _gram(theta, cosine) -> dict:
    mu = np.sqrt(theta)
    return dict(theta=theta, alpha_K=W_NORM * mu * cosine, alpha_Q=W_NORM * mu * cosine,
                omega_KK=W_NORM**2, omega_QQ=W_NORM**2, omega_KQ=W_NORM**2)


def _geometry(theta: float, cosine: float):
    return Geometry(mu_norm=float(np.sqrt(theta)), wk_norm=W_NORM, wq_norm=W_NORM, cos_mu_wk=cosine,
                    cos_mu_wq=cosine, cos_wk_wq=1.0)


def _difference(h, c, theta, cosine):
    gram = _gram(theta, cosine)
    return symrmt.attention_error(h, c, GAMMA, gram=gram) - symrmt.linear_error(c, GAMMA, gram=gram)


def _checks(h, s, points, label) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired Monte Carlo E_attn - E_lin at ``(c, |mu|^2, cos)`` points: mean, se, and the theory there."""
    out = [mc_gap(mc_over_gamma(h.f, s["n"], c, [GAMMA], _geometry(theta, cosine), seeds=s["seeds"]))
           for c, theta, cosine in progress(points, label)]
    theory = [float(_difference(h, *point)) for point in points]
    return np.array([m for m, _ in out]), np.array([e for _, e in out]), np.array(theory)


def build(quick: bool = False, f: FigureF | None = None, **overrides) -> Figure:
    """The figure; ``f``: its nonlinearity (default tanh, :func:`~symrmt.figures.nonlinearities.figure_f`)."""
    s = {**_sizes(quick), **overrides}
    f = f or figure_f()
    h = f.h
    tag = {**f.tags(), "d": 0.0, "gamma": GAMMA, "w_norm": W_NORM}
    mc_tag = {**tag, "n": s["n"], "seeds": s["seeds"]}
    q = "E_attn - E_lin"

    c = np.geomspace(0.05, 3.0, s["grid"])[None, :]
    theta = np.linspace(0.0, 4.0, s["grid"])[:, None]
    map_a = theory_curve(None, q, "c", {**tag, "c": c, "theta": theta, "cos_mu_w": 1.0},
                         _difference(h, c, theta, 1.0), {}, series="theory")
    ca, ta = np.array(s["checks_a"]).T
    mean, se, theory = _checks(h, s, [(ci, ti, 1.0) for ci, ti in s["checks_a"]], "phase (c, |mu|^2)")
    checks_a = mc_curve("Monte Carlo checks", q, "c", {**mc_tag, "c": ca, "theta": ta, "cos_mu_w": 1.0}, mean, se,
                        {}, theory=theory, label="Monte Carlo, paired over seeds")

    cosine = np.linspace(0.0, 1.0, s["grid"])[None, :]
    theta_b = np.linspace(0.0, 4.0, s["grid"])[:, None]
    map_b = theory_curve(None, q, "theta", {**tag, "c": C_FIXED, "theta": theta_b, "cos_mu_w": cosine},
                         _difference(h, C_FIXED, theta_b, cosine), {}, series="theory")
    tb, ub = np.array(s["checks_b"]).T
    mean, se, theory = _checks(h, s, [(C_FIXED, ti, ui) for ti, ui in s["checks_b"]], "phase (|mu|^2, cos)")
    checks_b = mc_curve("Monte Carlo checks", q, "theta", {**mc_tag, "c": C_FIXED, "theta": tb, "cos_mu_w": ub},
                        mean, se, {}, theory=theory, label="Monte Carlo, paired over seeds")

    c_line = np.geomspace(0.05, 3.0, 4 * s["grid"])
    series = rf"theory, $\|\mu\|^2 = {THETA_CUT:g}$, aligned"
    cut = theory_curve(series, q, "c", {**tag, "c": c_line, "theta": THETA_CUT, "cos_mu_w": 1.0},
                       _difference(h, c_line, THETA_CUT, 1.0), {"color": "C0"})
    mean, se, theory = _checks(h, s, [(ci, THETA_CUT, 1.0) for ci in s["cut_mc"]], "phase cut")
    cut_mc = mc_curve(series, q, "c", {**mc_tag, "c": np.array(s["cut_mc"]), "theta": THETA_CUT, "cos_mu_w": 1.0},
                      mean, se, {"color": "C0"}, theory=theory)

    label = r"$E_\mathrm{attn} - E_\mathrm{lin}$"
    bar = r"$E_\mathrm{attn} - E_\mathrm{lin}$ (blue: attention wins)"
    panels = [
        Panel("a", rf"(a) aligned weights $w = {W_NORM:g}\,\mu/\|\mu\|$", [map_a, checks_a], r"$c = p/n$",
              r"signal strength $\|\mu\|^2$", xscale="log", heatmap=("c", "theta"), colorbar=bar),
        Panel("b", rf"(b) $c = {C_FIXED:g}$, $\|w\| = {W_NORM:g}$", [map_b, checks_b],
              r"alignment $\cos\angle(w, \mu)$", r"signal strength $\|\mu\|^2$", heatmap=("cos_mu_w", "theta"),
              colorbar=bar),
        Panel("c", rf"(c) cut of (a) at $\|\mu\|^2 = {THETA_CUT:g}$", [cut, cut_mc], r"$c = p/n$", label,
              xscale="log", extra=[{"x": [0.05, 3.0], "y": [0, 0], "color": "k", "ls": "-"}]),
    ]
    ladder, sentence = _ladder_panel(h, tag, s, quick)
    panels.append(ladder)
    caption = (f"f = {f.text}, d = 0, ridge gamma = {GAMMA:g}, w_K = w_Q = w with |w| = {W_NORM:g}. "
               "Colour: the deterministic equivalent of E_attn - E_lin on a scale symmetric about 0 (blue: attention "
               "interpolates better; hatched: where it does); black line: its zero contour. Circles and markers: "
               f"Monte Carlo, n = {s['n']}, p = round(c n), {s['seeds']} seeds, the difference paired over seeds, "
               f"labelled mean ± half its 95% interval; {INTERVAL_TEXT}. {sentence}")
    return Figure("phase_diagram", "", caption, panels, mc_label=n_label(s["n"], s["seeds"]), ncols=2)


def _ladder_panel(h, tag: dict, s: dict, quick: bool) -> tuple[Panel, str]:
    """Panel (d): the paired gap at LADDER_POINT over a ladder of sizes, extrapolated to n = infinity."""
    c, theta = LADDER_POINT
    result = run_ladder(h.f, c, GAMMA, geometry=_geometry(theta, 1.0), quick=quick)
    label = rf"$c = {c:g}$, $\|\mu\|^2 = {theta:g}$, aligned"
    panel = convergence_panel("d", rf"(d) finite n where attention wins: {label}",
                              [(result, label, {**tag, "c": c, "theta": theta, "cos_mu_w": 1.0}, "C0")], "gap",
                              "E_attn - E_lin", r"$E_\mathrm{attn} - E_\mathrm{lin}$ (paired)", s["n"])
    panel.extra.append({"x": [-1.0, 1.0], "y": [0.0, 0.0], "color": "k", "ls": "-"})
    return panel, ladder_sentence(result, "gap", "gap", s["n"], "d")
