"""``symrmt sweep``: run a grid of settings into a resumable JSONL file, or tabulate one (:mod:`symrmt.sweep`)."""
from __future__ import annotations

import argparse
import json
import os
import sys

from ...errors import SymrmtInputError, shown
from ..output import cell
from ...runtime.files import check_not_an_input, fresh_path
from ..paths import check_output_file
from ..arguments import integer_argument

__all__ = ["add_sweep", "cmd_sweep"]


def add_sweep(sub) -> None:
    p = sub.add_parser("sweep", help="theory and Monte Carlo on a grid of settings, resumable (--summary to tabulate)",
                       description="Run every point of SPEC (JSON or TOML; format in symrmt.sweep), appending one "
                                   "JSON line per finished point to --out; rerun the same command to resume. "
                                   "Or tabulate a result file with --summary.")
    p.add_argument("spec", nargs="?", metavar="SPEC", help="the sweep spec, a .json or .toml file")
    p.add_argument("--out", metavar="FILE.jsonl", help="result file (created, or resumed if from the same spec)")
    p.add_argument("--workers", type=integer_argument, metavar="N",
                   help="local worker processes (default: the usable CPUs)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://127.0.0.1:8786 "
                                                          "(needs pip install 'symrmt[dask]')")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--summary", metavar="FILE.jsonl", help="print means and standard errors over seeds of a result "
                                                           "file and write them as CSV")
    p.add_argument("--csv", metavar="PATH", help="with --summary: the CSV file, replaced if it exists (default "
                                                 "FILE.summary.csv, or FILE.summary-1.csv, ... if that exists)")
    p.add_argument("--json", action="store_true", help="print JSON (the run's counts, or the summary rows)")


def cmd_sweep(args: argparse.Namespace) -> dict:
    from ... import sweep  # heavy: multiprocessing (its process pool: 15 ms of every command)

    if args.summary is not None:
        if args.spec is not None or args.out is not None:
            raise SymrmtInputError("--summary FILE reads a result file; give it without SPEC and --out.")
        return _summary(args, sweep)
    if args.csv is not None:
        raise SymrmtInputError("--csv writes the table of --summary FILE; a run writes only --out: leave --csv out, "
                               "and tabulate the result afterwards with --summary FILE --csv PATH.")
    if args.spec is None or args.out is None:
        raise SymrmtInputError("give SPEC and --out FILE.jsonl to run a sweep, or --summary FILE to tabulate one.")
    check_output_file(args.out, "--out")     # the folder and name only: the sweep owns the file's content
    check_not_an_input(args.out, "--out", [(args.spec, "SPEC")])
    try:
        spec = sweep.load_spec(args.spec)
        out = sweep.run_sweep(spec, args.out, workers=args.workers, scheduler=args.scheduler,
                              progress=not args.quiet)
    except KeyboardInterrupt:
        print(f"symrmt sweep: interrupted; finished points are in {args.out}. Run the same command to resume.",
              file=sys.stderr)
        raise SystemExit(130) from None
    if not args.json:
        dropped = f"; dropped a partial last line ({out['dropped_bytes']} bytes)" if out["dropped_bytes"] else ""
        print(f"{out['out']}: {out['points']} points, {out['computed']} computed now, "
              f"{out['skipped']} already there{dropped}")
    return out


def _summary(args: argparse.Namespace, sweep) -> dict:
    named = args.csv is not None               # a default name never replaces a file (docs/usage.md)
    csv = str(args.csv if named else fresh_path(sweep.summary.default_csv_path(args.summary)))
    check_output_file(csv, "--csv")
    check_not_an_input(csv, "--csv", [(args.summary, "--summary")])
    info, rows = sweep.summarize(args.summary)
    _check_not_a_spec(csv, info["spec_hash"], sweep)
    path = sweep.write_summary_csv(rows, csv, replace=named)
    if not args.json:
        print(f"{args.summary}: {info['finished']} of {info['points']} points (mean ± standard error over seeds)")
        _print_summary(rows, sweep.summary.SUMMARY_COLUMNS)
        print(f"CSV written to {path}")
    return {**info, "csv": str(path), "rows": rows}


def _check_not_a_spec(path: str, result_hash: str, sweep) -> None:
    """A named --csv may replace a file, but not the spec that the results came from (nor another sweep's spec):
    the results hold the spec, not its file, and a spec is an input that no command of symrmt writes."""
    if not os.path.isfile(path):
        return
    try:
        spec = sweep.load_spec(path)
    except SymrmtInputError:                           # not a spec: a named output may replace it
        return
    whose = "the spec of these results" if spec.hash == result_hash else "a sweep spec"
    raise SymrmtInputError(f"--csv {shown(path)} is {whose}; the summary would replace it. Give another --csv path.")


def _print_summary(rows: list[dict], columns: tuple[str, ...]) -> None:
    """One line per setting, n and gamma; geometries are numbered g0, g1, ... and listed below the table; the theory
    of a spec's further models (its ``models`` beyond the Monte Carlo's) in a column each at the end."""
    geometries = list(dict.fromkeys(json.dumps(r["geometry"], sort_keys=True) for r in rows))
    further = [k for k in rows[0] if k not in columns] if rows else []
    print(f"{'f':>10} {'c':>6} {'d':>6} {'geom':>4} {'n':>6} {'gamma':>9} {'seeds':>5} | "
          f"{'attn theory':>11} {'attn MC':>18} | {'lin theory':>10} {'lin MC':>18}"
          + "".join(f" | {k.replace('_', ' '):>{max(11, len(k))}}" for k in further))
    for r in rows:
        g = geometries.index(json.dumps(r["geometry"], sort_keys=True))
        f = r["f"] + "".join(f", {k}={v:g}" for k, v in r["params"].items())
        print(f"{f:>10} {r['c']:6.3g} {r['d']:6.3g} {'g' + str(g):>4} {r['n']:6d} {r['gamma']:9.4g} "
              f"{r['seeds']:5d} | {cell(r['attention_theory'], 11)} {cell(r['attention_mean'], 8)} ± "
              f"{cell(r['attention_se'], 7)} | {cell(r['linear_theory'], 10)} {cell(r['linear_mean'], 8)} ± "
              f"{cell(r['linear_se'], 7)}" + "".join(f" | {cell(r[k], max(11, len(k)))}" for k in further))
    for g, text in enumerate(geometries):
        print(f"  g{g} = {text}")
