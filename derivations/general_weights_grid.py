"""The full validation grid of the general-M theory on MiniLM-L6: every layer, two heads each, three f, two c, three signals.
==========================================================================================================================

    nice python derivations/general_weights_grid.py                    # the grid: docs/figures/general_weights_grid.csv
    nice python derivations/general_weights_grid.py --finite-p         # the worst misses at p = 768 to 3072
    python derivations/general_weights_grid.py --write-doc             # its tables into docs/real_weights.md (--table: print)
    nice python derivations/general_weights_grid.py --theory-change    # theory columns recomputed against the CSV

Matrices: each layer's M (all heads) and two single heads per layer (the heads of smallest and largest stable rank
r_s = ||M||_F^2/||M||_op^2), in symrmt's orientation (``MatrixFit.weights()``, key first), rescaled to unit score
variance (``||M||_F^2`` = p). For each matrix, f in {tanh, erf, centred ReLU}, c in {1, 0.5}, a signal (none; mu of norm 1
along a random direction, fixed per matrix; mu along M's top right singular vector) and gamma from 0.01 to 10:

- ``theory_general``: the general-M theory, ``symrmt.attention_error(f, c, gamma, weights=M, mu=mu)``;
- ``theory_fit``: the theory of the jointly fitted iota I + rank 8 mapped onto I + low rank
  (``symrmt.weights.fitted_attention_error``; f_iota centred), with ``regime_ratio`` ``|iota| sqrt(p)/sigma_1``;
- ``theory_elliptic``: the elliptic model iota I + E matched to (tr M, ||M||_F, tr M^2)
  (``symrmt.general.elliptic.attention_error_elliptic``), noise only (the model has no signal: empty otherwise);
- the Monte Carlo ``simulate(f, n = p/c, ..., weights=align_signal(M, mu))`` (mu along e_1 of the rotated frame is mu
  along its direction in M's frame), its mean and 95% Student-t half-width over the seeds.

``--finite-p`` reruns the Monte Carlo of the worst misses (for each kind of matrix, the c = 1 setting with the
largest gap among the cells outside the interval and more than 3% away) with M replaced by M (x) I_k and mu by
mu (x) e_1 (k = 2, 4, 8: p = 768 to 3072). Every p-side trace and quadratic form of the theory is unchanged by this
embedding (tests/general/test_general_kernel.py), so the theory is the same number, and the Monte Carlo converging
onto it is the finite-p part of the gap. The theory never sees the simulation.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from symrmt import attention_error, simulate  # noqa: E402
from symrmt.analysis.seeds import t_interval  # noqa: E402
from symrmt.general.elliptic import attention_error_elliptic  # noqa: E402
from symrmt.geometry import Geometry  # noqa: E402
from symrmt.simulation import align_signal  # noqa: E402
from symrmt.figures.real_weights import (GAMMAS_MC, chosen_heads, signal_direction, stable_rank,  # noqa: E402
                                         unit_weights)
from symrmt.weights import analyze, fitted_attention_error, regime_ratio  # noqa: E402

FS = {"tanh": "tanh(x)", "erf": "erf(x)", "relu": "Max(x, 0) - 1/sqrt(2*pi)"}
GAMMAS = GAMMAS_MC
RANK = 8
GRID_CSV = os.path.join(ROOT, "docs", "figures", "general_weights_grid.csv")
FINITE_CSV = os.path.join(ROOT, "docs", "figures", "general_weights_finite_p.csv")
COLUMNS = ["matrix", "layer", "head", "stable_rank", "f", "c", "signal", "gamma", "p", "n", "seeds",
           "theory_general", "theory_fit", "theory_elliptic", "regime_ratio", "mc_mean", "mc_halfwidth95"]


def matrices(layers, heads_per_layer: int = 2):
    """(name, layer, head, fit, scale, M) for each layer and its heads of smallest and largest stable rank."""
    analysis = analyze("minilm", layers=layers, heads=None, rank_max=RANK)
    for lay in analysis.layers:
        for fit in [lay.matrix] + chosen_heads(lay)[:heads_per_layer]:
            scale, M = unit_weights(fit)
            head = "" if fit.head is None else str(fit.head)
            yield f"L{lay.layer}" + (f"H{head}" if head else ""), lay.layer, head, fit, scale, M


def direction(signal: str, M: np.ndarray, layer: int, head: str) -> np.ndarray | None:
    """The figure's :func:`signal_direction` (head "" for the whole layer)."""
    return signal_direction(signal, M, layer, int(head) if head else None)


def monte_carlo(f: str, M: np.ndarray, u, c: float, gammas, seeds: int, embed: int = 1):
    """(mean, half-width 95%, n) of simulate(weights=M (x) I_embed) with mu = u (x) e_1 of norm 1."""
    if embed > 1:
        M = np.kron(M, np.eye(embed))
        u = None if u is None else np.kron(u, np.eye(embed)[0])
    p = M.shape[0]
    n = int(round(p / c))
    weights, geometry = (M, Geometry()) if u is None else (align_signal(M, u), Geometry(mu_norm=1.0))
    res = simulate(f, n, c, list(gammas), geometry=geometry, weights=weights, seeds=seeds, progress=False)
    mean, lo, hi = t_interval(res.attention_per_seed)
    return mean, (hi - lo) / 2, n


def _solved(solve, gammas) -> np.ndarray:
    """The theory's values, or NaN (an empty CSV cell, reported) where its solver refuses or does not converge."""
    try:
        return np.asarray(solve(), dtype=float)
    except (ValueError, ArithmeticError, RuntimeError) as exc:    # ConvergenceError and ParameterError included
        print(f"  theory not solved: {exc}", file=sys.stderr)
        return np.full(len(gammas), np.nan)


def _fmt(x) -> str:
    return "" if x is None or not np.isfinite(x) else f"{x:.6f}"


def theories(f: str, c: float, gammas, fit, scale: float, M: np.ndarray, u) -> tuple:
    """The three theory columns of one setting: general M, the I + rank-8 fit, the elliptic model (noise only)."""
    mu = np.zeros(M.shape[0]) if u is None else u
    general = _solved(lambda: attention_error(f, c, list(gammas), weights=M, mu=u), gammas)
    fitted = _solved(lambda: fitted_attention_error(fit, RANK, f, c, list(gammas), mu, scale=scale, center=True),
                     gammas)
    elliptic = (_solved(lambda: attention_error_elliptic(f, c, list(gammas), M), gammas)
                if u is None else [None] * len(gammas))
    return general, fitted, elliptic


def theory_change(a) -> None:
    """The theory columns of the chosen cells recomputed (no Monte Carlo) against those stored in ``--out``: the
    largest change per f and column, with its cell (how much a change of the theory's code moves the grid)."""
    stored = {(r["matrix"], r["f"], r["c"], r["signal"], r["gamma"]): r for r in read_rows(a.out)}
    worst: dict = {}
    for name, layer, head, fit, scale, M in matrices(a.layers, a.heads_per_layer):
        for fname in a.fs:
            for c in a.cs:
                for signal in a.signals:
                    values = theories(FS[fname], c, a.gammas, fit, scale, M, direction(signal, M, layer, head))
                    for column, new in zip(("theory_general", "theory_fit", "theory_elliptic"), values):
                        for g, v in zip(a.gammas, new):
                            cell = (name, fname, f"{c:g}", signal, f"{g:g}")
                            old = stored[cell][column]
                            if v is not None and np.isfinite(v) and old:
                                change = abs(v - float(old))
                                if change >= worst.get((fname, column), (-1.0,))[0]:
                                    worst[(fname, column)] = (change, cell)
    print("f,column,largest_change,cell (the stored values have 6 decimals: changes below 5e-7 are not seen)")
    for (fname, column), (change, cell) in sorted(worst.items()):
        print(f"{fname},{column},{change:.2g},{' '.join(cell)}")


def run_grid(a) -> None:
    tmp = a.out + ".partial"
    with open(tmp, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(COLUMNS)
        for name, layer, head, fit, scale, M in matrices(a.layers, a.heads_per_layer):
            rs = stable_rank(M)
            ratio = regime_ratio(fit, RANK)
            p = M.shape[0]
            for fname in a.fs:
                f = FS[fname]
                for c in a.cs:
                    for signal in a.signals:
                        t0 = time.time()
                        u = direction(signal, M, layer, head)
                        general, fitted, elliptic = theories(f, c, a.gammas, fit, scale, M, u)
                        t1 = time.time()
                        mean, half, n = monte_carlo(f, M, u, c, a.gammas, a.seeds)
                        t2 = time.time()
                        for k, g in enumerate(a.gammas):
                            out.writerow([name, layer, head, f"{rs:.4f}", fname, f"{c:g}", signal, f"{g:g}", p, n,
                                          a.seeds, _fmt(general[k]), _fmt(fitted[k]), _fmt(elliptic[k]),
                                          f"{ratio:.4f}", _fmt(mean[k]), _fmt(half[k])])
                        handle.flush()
                        print(f"{name} {fname} c={c:g} {signal}: theory {t1 - t0:.2f} s, MC {t2 - t1:.2f} s",
                              file=sys.stderr, flush=True)
    os.replace(tmp, a.out)


def read_rows(path: str) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


KINDS = ("layer", "head, smallest r_s", "head, largest r_s")


def kinds(rows: list[dict]) -> dict[str, str]:
    """matrix name -> its kind: the whole layer, or the layer's head of smaller or larger stable rank."""
    heads: dict[str, dict[str, float]] = {}
    for r in rows:
        if r["head"]:
            heads.setdefault(r["layer"], {})[r["matrix"]] = float(r["stable_rank"])
    out = {r["matrix"]: KINDS[0] for r in rows if not r["head"]}
    for pair in heads.values():
        low = min(pair, key=pair.get)
        out.update({name: KINDS[1] if name == low else KINDS[2] for name in pair})
    return out


def gap(row: dict) -> float:
    return float(row["theory_general"]) - float(row["mc_mean"])


def inside(row: dict) -> bool:
    """The general-M theory inside the Monte Carlo's 95% interval."""
    return abs(gap(row)) <= float(row["mc_halfwidth95"])


def close(row: dict) -> bool:
    """The goal's test: inside the interval, or within 3% of the Monte Carlo mean."""
    return inside(row) or abs(gap(row)) <= 0.03 * abs(float(row["mc_mean"]))


def misses(row: dict) -> bool:
    """The general-M theory outside the MC's 95% interval and more than 3% away from its mean."""
    return not close(row)


def fit_misses(row: dict) -> bool:
    """The I + rank-8 fit's theory more than 10% from the Monte Carlo mean (or not solved)."""
    fit = float(row["theory_fit"]) if row["theory_fit"] else float("nan")
    return not abs(fit - float(row["mc_mean"])) <= 0.10 * abs(float(row["mc_mean"]))


def finite_settings(rows: list[dict], per_kind: int = 1) -> list[tuple]:
    """For each kind, the ``per_kind`` c = 1 settings (distinct signals) with the largest gap among the misses."""
    kind = kinds(rows)
    worst: dict[tuple, float] = {}
    for r in rows:
        if r["c"] == "1" and misses(r):
            key = (r["matrix"], r["f"], r["c"], r["signal"])
            worst[key] = max(worst.get(key, 0.0), abs(gap(r)))
    chosen = []
    for k in KINDS:
        signals = set()
        for key in sorted((key for key in worst if kind[key[0]] == k), key=lambda key: -worst[key]):
            if key[3] not in signals and len(signals) < per_kind:
                signals.add(key[3])
                chosen.append(key)
    return chosen


def run_finite_p(a) -> None:
    """The chosen missed settings (:func:`finite_settings`) again, M embedded at k p for k in ``a.embeds``."""
    rows = read_rows(a.out)
    chosen = finite_settings(rows)
    by_name = {name: (layer, head, M) for name, layer, head, _, _, M in
               matrices(sorted({int(r["layer"]) for r in rows if r["matrix"] in {s[0] for s in chosen}}),
                        a.heads_per_layer)}
    tmp = a.finite_out + ".partial"
    with open(tmp, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["matrix", "stable_rank", "f", "c", "signal", "gamma", "p", "n", "seeds", "theory_general",
                      "mc_mean", "mc_halfwidth95"])
        for name, fname, c, signal in chosen:
            layer, head, M = by_name[name]
            base = [r for r in rows if (r["matrix"], r["f"], r["c"], r["signal"]) == (name, fname, c, signal)]
            gammas = [float(r["gamma"]) for r in base]
            u = direction(signal, M, layer, head)
            for r in base:
                out.writerow([name, r["stable_rank"], fname, c, signal, r["gamma"], r["p"], r["n"], r["seeds"],
                              r["theory_general"], r["mc_mean"], r["mc_halfwidth95"]])
            for k in a.embeds:
                t0 = time.time()
                mean, half, n = monte_carlo(FS[fname], M, u, float(c), gammas, a.finite_seeds, embed=k)
                for j, r in enumerate(base):
                    out.writerow([name, f"{k * float(r['stable_rank']):.4f}", fname, c, signal, r["gamma"],
                                  k * M.shape[0], n, a.finite_seeds, r["theory_general"], _fmt(mean[j]),
                                  _fmt(half[j])])
                handle.flush()
                print(f"{name} {fname} c={c} {signal} p={k * M.shape[0]}: MC {time.time() - t0:.1f} s",
                      file=sys.stderr, flush=True)
    os.replace(tmp, a.finite_out)


# --------------------------------------------------------------------------- the tables of docs/real_weights.md

BEGIN, END = "<!-- general_weights_grid: begin -->", "<!-- general_weights_grid: end -->"


def _count(rows, test) -> int:
    return sum(1 for r in rows if test(r))


def _elliptic_close(r) -> bool:
    mc = float(r["mc_mean"])
    return abs(float(r["theory_elliptic"]) - mc) <= max(float(r["mc_halfwidth95"]), 0.03 * abs(mc))


def summary_table(rows: list[dict]) -> str:
    kind = kinds(rows)
    lines = ["| matrices | signal | cells | general M inside 95% | general M inside or within 3% | median \|gap\| | "
             "max \|gap\| | fit off by > 10% | goal holds there | elliptic inside or within 3% |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for k in KINDS:
        for signal in ("none", "random", "top"):
            sub = [r for r in rows if kind[r["matrix"]] == k and r["signal"] == signal]
            gaps = np.abs([gap(r) for r in sub])
            missed = [r for r in sub if fit_misses(r)]
            ell = f"{_count(sub, _elliptic_close)} of {len(sub)}" if signal == "none" else "–"
            lines.append(f"| {k} | {signal} | {len(sub)} | {_count(sub, inside)} | {_count(sub, close)} | "
                         f"{np.median(gaps):.3f} | {gaps.max():.3f} | {len(missed)} | {_count(missed, close)} | {ell} |")
    return "\n".join(lines)


def gamma_table(rows: list[dict]) -> str:
    """Where the goal fails: per gamma and kind, failures among the cells where the fit is off by > 10%."""
    kind = kinds(rows)
    gammas = sorted({float(r["gamma"]) for r in rows})
    lines = ["| γ | " + " | ".join(f"{k}: goal fails / applies" for k in KINDS) + " |",
             "|---|" + "---|" * len(KINDS)]
    for g in gammas:
        cells = []
        for k in KINDS:
            sub = [r for r in rows if kind[r["matrix"]] == k and float(r["gamma"]) == g and fit_misses(r)]
            cells.append(f"{_count(sub, misses)} / {len(sub)}")
        lines.append(f"| {g:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def excess_kurtosis(M: np.ndarray) -> float:
    r"""Excess kurtosis of an off-diagonal score :math:`z_i^\top M z_j`, z Gaussian: :math:`6\sum\sigma^4/(\sum\sigma^2)^2`."""
    sigma2 = np.linalg.svd(M, compute_uv=False) ** 2
    return float(6 * np.sum(sigma2**2) / np.sum(sigma2) ** 2)


def kurtoses(rows: list[dict]) -> dict[str, float]:
    """matrix name -> :func:`excess_kurtosis` of the grid's matrices (read again from the weights)."""
    layers = sorted({int(r["layer"]) for r in rows})
    names = set(r["matrix"] for r in rows)
    return {name: excess_kurtosis(M) for name, _, _, _, _, M in matrices(layers) if name in names}


def matrix_table(rows: list[dict], kurtosis: dict[str, float]) -> str:
    kind = kinds(rows)
    lines = ["| matrix | r_s | excess kurtosis of S_ij | inside 95% | inside or within 3% | goal fails / applies | "
             "largest gap (f, c, signal, γ) |", "|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["matrix"] for r in rows):
        sub = [r for r in rows if r["matrix"] == name]
        worst = max(sub, key=lambda r: abs(gap(r)))
        applies = [r for r in sub if fit_misses(r)]
        lines.append(f"| {name} ({kind[name]}) | {float(sub[0]['stable_rank']):.1f} | {kurtosis[name]:.2f} | "
                     f"{_count(sub, inside)} of "
                     f"{len(sub)} | {_count(sub, close)} of {len(sub)} | {_count(applies, misses)} / {len(applies)} | "
                     f"{gap(worst):+.3f} ({worst['f']}, {worst['c']}, {worst['signal']}, {float(worst['gamma']):g}) |")
    return "\n".join(lines)


def finite_table(finite: list[dict]) -> str:
    """Per chosen setting and gamma where p = 384 misses: theory, and theory - MC at each p."""
    ps = sorted({int(r["p"]) for r in finite})
    lines = ["| matrix | f | signal | γ | theory | " + " | ".join(f"gap at p = {p} (r_s)" for p in ps) +
             f" | share of the p = {ps[0]} gap closed at p = {ps[-1]} |", "|---|---|---|---|---|" + "---|" * (len(ps) + 1)]
    keys = list(dict.fromkeys((r["matrix"], r["f"], r["c"], r["signal"], r["gamma"]) for r in finite))
    shares, closed = [], 0
    for key in keys:
        at = {int(r["p"]): r for r in finite if (r["matrix"], r["f"], r["c"], r["signal"], r["gamma"]) == key}
        if not misses(at[ps[0]]):
            continue
        cells = [f"{gap(at[p]):+.3f} ± {float(at[p]['mc_halfwidth95']):.3f} ({float(at[p]['stable_rank']):.0f})"
                 for p in ps]
        share = 1 - gap(at[ps[-1]]) / gap(at[ps[0]])
        shares.append(share)
        closed += close(at[ps[-1]])
        lines.append(f"| {key[0]} | {key[1]} | {key[3]} | {float(key[4]):g} | {float(at[ps[0]]['theory_general']):.3f} | "
                     + " | ".join(cells) + f" | {100 * share:.0f}% |")
    settings = ", ".join(f"{m} ({f}, c = {c}, {sig})" for m, f, c, sig in dict.fromkeys(k[:4] for k in keys))
    head = (f"Finite p (c = 1, {finite[0]['seeds']} seeds at p = {ps[0]}, {max(int(r['seeds']) for r in finite if int(r['p']) > ps[0])} "
            f"at the larger p; for each kind of matrix the setting with the largest miss: {settings}): of the "
            f"{len(shares)} cells that miss at p = {ps[0]}, {closed} are inside the interval or within 3% at p = {ps[-1]}, "
            f"and the median share of the gap that closes is {100 * float(np.median(shares)):.0f}%.")
    return head + "\n\n" + "\n".join(lines)


def rank_split(rows: list[dict]) -> str:
    """The goal's failures for the matrices below and above the median stable rank."""
    ranks = {r["matrix"]: float(r["stable_rank"]) for r in rows}
    median = float(np.median(list(ranks.values())))
    parts = []
    for word, test in (("below", lambda v: v < median), ("above", lambda v: v > median)):
        names = {name for name, v in ranks.items() if test(v)}
        applies = [r for r in rows if r["matrix"] in names and fit_misses(r)]
        parts.append(f"the {len(names)} matrices {word} it fail in {_count(applies, misses)} of {len(applies)}")
    return (f"By stable rank (median r_s = {median:.1f} over the {len(ranks)} matrices), among the cells where the "
            f"fit is off by more than 10%: {parts[0]}, {parts[1]}.")


def signs(rows: list[dict]) -> str:
    """The signs of the gaps the page's reading relies on."""
    kind = kinds(rows)
    top = [r for r in rows if kind[r["matrix"]] == KINDS[0] and r["signal"] == "top"]
    noise = [r for r in rows if r["signal"] == "none"]
    heads = [r for r in rows if kind[r["matrix"]] != KINDS[0] and float(r["gamma"]) <= 0.1]
    return (f"Signs: on whole layers with mu along the top singular vector the general-M theory is above the Monte Carlo "
            f"in {_count(top, lambda r: gap(r) > 0)} of {len(top)} cells; in the {len(noise)} noise-only cells the "
            f"elliptic model is below the exact theory in {_count(noise, lambda r: float(r['theory_elliptic']) < float(r['theory_general']))} "
            f"and below the Monte Carlo in {_count(noise, lambda r: float(r['theory_elliptic']) < float(r['mc_mean']))}; "
            f"on the heads at γ ≤ 0.1 the general-M theory is below the Monte Carlo in "
            f"{_count(heads, lambda r: gap(r) < 0)} of {len(heads)} cells.")


def tables(rows: list[dict], finite: list[dict], kurtosis: dict[str, float]) -> str:
    """The generated block of docs/real_weights.md."""
    total = len(rows)
    applies = [r for r in rows if fit_misses(r)]
    parts = [BEGIN, "",
             f"The general-M theory is inside the Monte Carlo's 95% interval in {_count(rows, inside)} of {total} "
             f"cells, and inside it or within 3% of its mean in {_count(rows, close)} of {total}. The I + rank-8 "
             f"fit's theory is off by more than 10% in {len(applies)} of {total} cells; there the goal (general M "
             f"inside or within 3%) holds in {_count(applies, close)} of {len(applies)} and fails in "
             f"{_count(applies, misses)}. {rank_split(rows)} {signs(rows)}", "", summary_table(rows), "", gamma_table(rows), "",
             matrix_table(rows, kurtosis)]
    if finite:
        parts += ["", finite_table(finite)]
    return "\n".join(parts + ["", END])


def write_doc(block: str, path: str = os.path.join(ROOT, "docs", "real_weights.md")) -> None:
    text = open(path).read()
    start, end = text.index(BEGIN), text.index(END) + len(END)
    with open(path, "w") as handle:
        handle.write(text[:start] + block + text[end:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5])
    ap.add_argument("--heads-per-layer", type=int, default=2, choices=[0, 1, 2])
    ap.add_argument("--fs", nargs="+", default=list(FS), choices=list(FS))
    ap.add_argument("--cs", type=float, nargs="+", default=[1.0, 0.5])
    ap.add_argument("--signals", nargs="+", default=["none", "random", "top"], choices=["none", "random", "top"])
    ap.add_argument("--gammas", type=float, nargs="+", default=list(GAMMAS))
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--out", default=GRID_CSV)
    ap.add_argument("--finite-p", action="store_true", help="embed the misses of --out at larger p")
    ap.add_argument("--embeds", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--finite-seeds", type=int, default=6)
    ap.add_argument("--finite-out", default=FINITE_CSV)
    ap.add_argument("--table", action="store_true", help="print the generated tables of docs/real_weights.md")
    ap.add_argument("--write-doc", action="store_true", help="write them into docs/real_weights.md (between markers)")
    ap.add_argument("--theory-change", action="store_true",
                    help="recompute the theory columns of the chosen cells (no Monte Carlo) and print the largest "
                         "change against --out")
    a = ap.parse_args(argv)
    if a.table or a.write_doc:
        rows = read_rows(a.out)
        block = tables(rows, read_rows(a.finite_out) if os.path.exists(a.finite_out) else [], kurtoses(rows))
        write_doc(block) if a.write_doc else print(block)
    elif a.finite_p:
        run_finite_p(a)
    elif a.theory_change:
        theory_change(a)
    else:
        run_grid(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
