"""Finite-size rates over the regimes of the model: the table of docs/validation.md, section "Finite size".
========================================================================================================

For each regime, ``symrmt.converge`` simulates the ladder n = 256, ..., 4096 (seeds per size so
that each size costs about the same) at gamma = 0.1 and extrapolates E_attn, E_lin and their
paired gap to n = infinity. The table gives, for E_attn: the measured deviation from the
theory at every size (with the relative standard error at the largest), the fitted correction
at n = 1024 relative to the limit, the chosen fit and its exponent, the limit with its 95%
interval against the theory, and the size from which the fitted correction stays within 1% of
the limit.

Run::

    nice -n 10 python derivations/finite_size.py [--seeds S] [--ns 256,512,...] [--only NAME ...] [--out DIR]

Writes finite_size_<regime>.csv (Convergence.to_csv: the per-size means, standard errors and seeds,
and every fit) and finite_size.csv (one row per regime) into DIR (default derivations/out/), and
prints the Markdown table. ``--refit`` redoes the fits and the table from those CSV files without
simulating (the fits are cheap; the table is always computed from the CSV files).
"""
from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np

from symrmt import Geometry, converge, hermite
from symrmt.presentation.display import rows_to_csv
from symrmt.analysis.finite_size import EXPONENT_RANGE, extrapolate

GAMMA = 0.1
ALIGNED = Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
# Rank 2: (mu, w_K1, w_K2, w_Q1, w_Q2) with w_K1 = w_Q1 = mu (norm 1) and w_K2 = w_Q2 orthogonal to mu (norm 1).
RANK2 = np.array([[1, 1, 0, 1, 0], [1, 1, 0, 1, 0], [0, 0, 1, 0, 1], [1, 1, 0, 1, 0], [0, 0, 1, 0, 1]], float)

#: name -> (description, f, c, keyword arguments of converge)
REGIMES = {
    "noise": ("noise only (tanh, c = 1)", "tanh(x)", 1.0, {}),
    "signal": ("signal, no weights (tanh, c = 1, ‖μ‖ = 1)", "tanh(x)", 1.0, {"geometry": Geometry(mu_norm=1.0)}),
    "aligned-0.25": ("aligned, c = 0.25 (tanh, ‖μ‖ = 1, ‖w‖ = 2)", "tanh(x)", 0.25,
                     {"geometry": Geometry(1.0, 2.0, 2.0, 1.0, 1.0, 1.0)}),
    "aligned-1": ("aligned, c = 1 (tanh, ‖μ‖ = ‖w‖ = 1)", "tanh(x)", 1.0, {"geometry": ALIGNED}),
    "aligned-2": ("aligned, c = 2 (tanh, ‖μ‖ = ‖w‖ = 1)", "tanh(x)", 2.0, {"geometry": ALIGNED}),
    "a1-zero": ("a_1 = 0, strong signal (He_3/sqrt 6, ‖μ‖² = 4, ‖w‖ = 1, c = 1)", "(x**3 - 3*x)/sqrt(6)", 1.0,
                {"geometry": Geometry(2.0, 1.0, 1.0, 1.0, 1.0, 1.0)}),
    "relu": ("kink: centered ReLU (c = 1, ‖μ‖ = ‖w‖ = 1 aligned)", "relu(x)", 1.0, {"geometry": ALIGNED}),
    "rank-2": ("rank 2 (tanh, c = 1, w_1 = mu, w_2 orthogonal, norms 1)", "tanh(x)", 1.0, {"gram": RANK2}),
    "diagonal": ("d = 0.5 (tanh, c = 1, ‖μ‖ = ‖w‖ = 1 aligned)", "tanh(x)", 1.0, {"geometry": ALIGNED, "d": 0.5}),
}

HEADER = ["regime", "theory", "n_max_mean", "limit", "limit_lo", "limit_hi", "agrees", "model", "exponent",
          "exponent_lo", "exponent_hi", "first", "fitted_correction_1024", "measured_deviation_1024", "deviations_pct",
          "top_se_pct", "n_within_1pct",
          "gap_theory", "gap_limit", "gap_lo", "gap_hi", "gap_agrees", "gap_model", "gap_exponent", "seconds", "load"]


def simulate_regime(name: str, ns, seeds: int, out: Path) -> tuple[float, float]:
    """One regime's ladder, written as ``finite_size_<name>.csv``; returns (seconds, mean load average)."""
    _, f, c, kwargs = REGIMES[name]
    start, load = time.perf_counter(), os.getloadavg()[0]
    result = converge(hermite(f, center=True), c, [GAMMA], ns=ns, seeds=seeds, progress=False, **kwargs)
    result.to_csv(out / f"finite_size_{name}.csv")
    return time.perf_counter() - start, (load + os.getloadavg()[0]) / 2


def ladder_from_csv(path: Path) -> dict[str, tuple]:
    """``{quantity: (ns, mean, se, seeds, theory)}`` at the regime's gamma, read back from Convergence.to_csv."""
    with open(path) as handle:
        rows = [row for row in csv.DictReader(handle) if float(row["gamma"]) == GAMMA]
    out = {}
    for row in rows:
        ns = sorted(int(key[5:]) for key in row if key.startswith("mean_"))
        out[row["quantity"]] = (np.array(ns), np.array([float(row[f"mean_{n}"]) for n in ns]),
                                np.array([float(row[f"se_{n}"]) for n in ns]),
                                np.array([int(row[f"seeds_{n}"]) for n in ns]), float(row["theory"]))
    return out


def summary(name: str, ladder: dict[str, tuple], seconds: float, load: float) -> list:
    """The row of :data:`HEADER`: both fits redone by ``extrapolate`` from the per-size means."""
    fits = {q: extrapolate(*ladder[q][:4], rng=np.random.default_rng(0)) for q in ("attention", "gap")}
    ns, mean, _, _, theory = ladder["attention"]
    fit, gap = fits["attention"], fits["gap"]
    gap_theory = ladder["gap"][4]
    measured = float(mean[ns == 1024][0] / theory - 1) if np.any(ns == 1024) else float("nan")
    deviations = ";".join(f"{100 * (m / theory - 1):.2f}" for m in mean)
    top_se = float(100 * ladder["attention"][2][-1] / theory)
    return [name, theory, float(mean[-1]), fit.limit, fit.lo, fit.hi, bool(fit.lo <= theory <= fit.hi), fit.model,
            fit.exponent, fit.exponent_lo, fit.exponent_hi, fit.first, float(fit.correction(1024) / fit.limit),
            measured, deviations, top_se, fit.size_within(0.01), gap_theory, gap.limit, gap.lo, gap.hi,
            bool(gap.lo <= gap_theory <= gap.hi), gap.model, gap.exponent, seconds, load]


def _within_text(r: dict) -> str:
    """The "n for 1%" cell: the fitted size, or why there is none.

    A fit whose free exponent sits at a bound of its range (``EXPONENT_RANGE``) has not found a power law:
    the bound, not the data, sets its correction, so the size it implies is not printed.
    """
    size = float(r["n_within_1pct"])
    at_bound = [b for b in EXPONENT_RANGE if r["model"] == "n^-alpha" and np.isclose(float(r["exponent"]), b)]
    if at_bound:
        return f"none: exponent at its bound {at_bound[0]:g}"
    return "> 10^12" if not np.isfinite(size) else f"{size:.2g}"


def markdown(rows: list) -> str:
    """The table of docs/validation.md from the summary rows."""
    lines = ["| regime | theory | E_attn / theory - 1 along the ladder (s.e. at the top) "
             "| fitted correction at 1024 | fit (exponent [95%]) "
             "| limit [95% interval] | inside | n for 1% (fit) | gap: theory, limit [95%] |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        r = dict(zip(HEADER, row))
        within = _within_text(r)
        series = ", ".join(f"{float(v):+.1f}" for v in str(r["deviations_pct"]).split(";"))
        lines.append(
            f"| {REGIMES[r['regime']][0]} | {r['theory']:.4f} | {series}% (±{float(r['top_se_pct']):.1f}%) "
            f"| {100 * r['fitted_correction_1024']:+.1f}% | {r['model']} ({r['exponent']:.2f} "
            f"[{r['exponent_lo']:.2f}, {r['exponent_hi']:.2f}]) "
            f"| {r['limit']:.4f} [{r['limit_lo']:.4f}, {r['limit_hi']:.4f}] | {'yes' if r['agrees'] else '**no**'} "
            f"| {within} | {r['gap_theory']:+.4f}, {r['gap_limit']:+.4f} [{r['gap_lo']:+.4f}, {r['gap_hi']:+.4f}]"
            f"{'' if r['gap_agrees'] else ' **outside**'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="256,512,1024,2048,4096", help="the ladder (default 256..4096)")
    parser.add_argument("--seeds", type=int, default=8, help="seeds at the largest size (default 8)")
    parser.add_argument("--only", nargs="*", choices=list(REGIMES), help="run only these regimes")
    parser.add_argument("--out", default="derivations/out", help="folder of the CSV files")
    parser.add_argument("--refit", action="store_true",
                        help="no simulation: redo the fits and the table from the CSV files already in --out")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ns = [int(n) for n in args.ns.split(",")]
    timing = {}
    if args.refit:
        with open(out / "finite_size.csv") as handle:
            timing = {row["regime"]: (float(row["seconds"]), float(row["load"])) for row in csv.DictReader(handle)}
    rows = []
    for name in args.only or REGIMES:
        if not args.refit:
            timing[name] = simulate_regime(name, ns, args.seeds, out)
            print(f"{name}: {timing[name][0]:.0f} s, load {timing[name][1]:.1f}", flush=True)
        rows.append(summary(name, ladder_from_csv(out / f"finite_size_{name}.csv"), *timing[name]))
        rows_to_csv(HEADER, rows, out / "finite_size.csv")
    print(markdown(rows))


if __name__ == "__main__":
    main()
