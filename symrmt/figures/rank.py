r"""Rank-1 against rank-r attention weights of the same total strength.

:math:`W_K^\top W_Q = I_p + \sum_{k \le r} w_K^{(k)} w_Q^{(k)\top}` with
:math:`w_K^{(k)} = w_Q^{(k)} = \rho\, v_k/\sqrt r` for orthonormal :math:`v_k`, so that
:math:`\sum_k \|w^{(k)}\|^2 = \rho^2` whatever :math:`r`. Two placements of the signal:
*spread*, :math:`\mu/\|\mu\| = \sum_k v_k/\sqrt r` (every direction sees a share of it), and
*half aligned*, :math:`\mu/\|\mu\| = (v_1 + u)/\sqrt 2` with :math:`u` orthogonal to every
:math:`v_k` (half of the signal outside the weights' span). Where the signal sits *inside* the
span does not matter: :math:`W_K^\top W_Q - I = (\rho^2/r) \sum_k v_k v_k^\top` is a multiple of
the projector onto the span, so :math:`\mu = \|\mu\| v_1` gives exactly the spread curve (a
symmetry the Gram-matrix theory reproduces to round-off). The theory enters only through the
:math:`(1 + 2r) \times (1 + 2r)` Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`. The
conclusion, with its region, is ``CLAIMS["rank"]`` (:mod:`symrmt.figures.claims`): splitting the
strength over more directions never lowers the error. Panel (b) draws the ranks as separate
points (theory as bars, Monte Carlo as markers): there is nothing between two ranks.

This figure needs ``attention_error(..., gram=G)`` and ``simulate(..., gram=G)`` with such a
matrix; without them :func:`build` raises :class:`~symrmt.figures.FigureUnavailable`.
"""
from __future__ import annotations

import inspect

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from .. import Geometry
from .figure import INTERVAL_TEXT, Figure, FigureUnavailable, Panel, progress
from .nonlinearities import FigureF, figure_f
from .series import LINEAR_STYLE, mc_curve, n_label, theory_curve

MU_NORM = 1.0
STRENGTH = 2.0       # rho = sqrt(sum_k |w^(k)|^2)
C_FIXED = 1.0
GAMMA = 0.1
COLORS = {1: "C0", 2: "C1", 3: "C2", 4: "C4"}


def gram_matrix(r: int, placement: str, mu_norm: float = MU_NORM, strength: float = STRENGTH) -> np.ndarray:
    r"""The Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, shape :math:`(1 + 2r, 1 + 2r)`."""
    v = np.eye(r + 1)[:r]                                   # r orthonormal directions; the last axis is u
    if placement == "spread":
        direction = np.r_[np.ones(r) / np.sqrt(r), 0.0]
    elif placement == "half aligned":
        direction = (v[0] + np.eye(r + 1)[r]) / np.sqrt(2)
    else:
        raise ValueError(f"placement {placement!r}: use 'spread' or 'half aligned'")
    w = strength / np.sqrt(r) * v
    vectors = np.vstack([mu_norm * direction, w, w])
    return vectors @ vectors.T


def _engine():
    attention_error, simulate = symrmt.attention_error, symrmt.simulate
    try:
        attention_error((0.5, 0.5), 1.0, 1.0, gram=gram_matrix(2, "spread"))
    except Exception as exc:  # noqa: BLE001 - any refusal means the rank-r Gram matrix is not understood yet
        raise FigureUnavailable(f"needs the engine's spectral_density/gram (attention_error(gram=G) with a "
                                f"(1+2r)x(1+2r) matrix: {type(exc).__name__}: {exc})") from None
    if "gram" not in inspect.signature(simulate).parameters:
        raise FigureUnavailable("needs the engine's spectral_density/gram (simulate(..., gram=G))")
    return attention_error, simulate


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(n=256, seeds=3, ranks=[1, 2, 3], gammas_mc=[0.01, 0.1, 1.0], points=30)
    return dict(n=2048, seeds=8, ranks=[1, 2, 3, 4], gammas_mc=list(np.logspace(-2, 1, 7)), points=120)


def _placement(f: FigureF, placement: str, style: str, s: dict, simulate, attention_error, gamma):
    """Curves of one placement: against gamma (panel a; every rank for "spread", rank 1 otherwise) and the
    per-rank points at GAMMA (panel b)."""
    h = f.h
    base = {**f.tags(), "d": 0.0, "c": C_FIXED, "theta": MU_NORM**2, "w_norm": STRENGTH}
    by_gamma, rank_mean, rank_se = [], [], []
    for r in progress(s["ranks"], f"rank ({placement})"):
        G = gram_matrix(r, placement)
        tag = {**base, "rank": r, "placement": placement}
        mc = simulate(h.f, n=s["n"], c=C_FIXED, gamma=np.array([*s["gammas_mc"], GAMMA]), gram=G,
                      seeds=s["seeds"], progress=False)
        rank_mean.append(mc.attention_mean[-1])
        rank_se.append(mc.attention_se[-1])
        if placement == "spread" or r == 1:
            color = {"color": COLORS.get(r, "C5"), "linestyle": style}
            series = f"r = {r}, {placement}"
            k = len(s["gammas_mc"])
            by_gamma.append(theory_curve(series, "E_attn", "gamma", {**tag, "gamma": gamma},
                                         attention_error(h, C_FIXED, gamma, gram=G), color))
            by_gamma.append(mc_curve(series, "E_attn", "gamma",
                                     {**tag, "gamma": mc.gamma[:k], "n": s["n"], "seeds": s["seeds"]},
                                     mc.attention_mean[:k], mc.attention_se[:k], color,
                                     theory=attention_error(h, C_FIXED, mc.gamma[:k], gram=G)))
    ranks = np.array(s["ranks"])
    theory = np.array([float(attention_error(h, C_FIXED, GAMMA, gram=gram_matrix(r, placement))) for r in ranks])
    tag = {**base, "gamma": GAMMA, "placement": placement}
    color = "C0" if placement == "spread" else "C3"
    # Integer ranks: the theory as a bar at each rank, the Monte Carlo beside it; no line joins ranks.
    by_rank = [theory_curve(f"{placement}: theory", "E_attn", "rank", {**tag, "rank": ranks}, theory,
                            {"color": color, "linestyle": "none", "marker": "_", "markersize": 22,
                             "markeredgewidth": 2.0}, series=placement),
               mc_curve(placement, "E_attn", "rank", {**tag, "rank": ranks, "n": s["n"], "seeds": s["seeds"]},
                        rank_mean, rank_se, {"color": color, "marker": "o" if placement == "spread" else "s"},
                        theory=theory)]
    return by_gamma, by_rank


def build(quick: bool = False, f: FigureF | None = None, **overrides) -> Figure:
    """The figure; ``f``: its nonlinearity (default tanh, :func:`~symrmt.figures.nonlinearities.figure_f`)."""
    attention_error, simulate = _engine()
    s = {**_sizes(quick), **overrides}
    f = f or figure_f()
    gamma = np.logspace(-3, 2, s["points"])
    by_gamma, by_rank = [], []
    for placement, style in (("spread", "-"), ("half aligned", "--")):
        curves_gamma, curves_rank = _placement(f, placement, style, s, simulate, attention_error, gamma)
        by_gamma += curves_gamma
        by_rank += curves_rank
    lin = {"f": "linear regression", "c": C_FIXED, "theta": MU_NORM**2}
    by_gamma.append(theory_curve("linear regression", "E_lin", "gamma", {**lin, "gamma": gamma},
                                 symrmt.linear_error(C_FIXED, gamma, Geometry(mu_norm=MU_NORM)), LINEAR_STYLE))
    ranks = s["ranks"]
    panels = [
        Panel("a", rf"(a) against the ridge, $c = {C_FIXED:g}$", by_gamma, r"ridge $\gamma$",
              r"interpolation error $E(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.03),
        Panel("b", rf"(b) against the rank, $\gamma = {GAMMA:g}$", by_rank, r"rank $r$",
              r"interpolation error $E_\mathrm{attn}(\gamma)$", dodge=0.12, xticks=tuple(ranks),
              xlim=(min(ranks) - 0.5, max(ranks) + 0.5)),
    ]
    caption = (f"f = {f.text}, d = 0, |mu| = {MU_NORM:g}, total weight strength sum_k |w^(k)|^2 = "
               f"{STRENGTH**2:g} split equally over r orthonormal directions (w_K^(k) = w_Q^(k)); spread: mu has equal "
               "overlap with every direction; half aligned: half of mu along the first direction, half outside the "
               "span. Lines and bars: theory; markers: Monte Carlo, "
               f"n = {s['n']}, p = round(c n), {s['seeds']} seeds, {INTERVAL_TEXT}.")
    return Figure("rank", "", caption, panels, mc_label=n_label(s["n"], s["seeds"]))
