"""The algebraic form against the quadrature form on 10^4 random points; writes tests/data/algebraic_disagreements.json.

Run ``python benchmarks/agreement.py [points] [seed]`` (default 10000 points, seed 2026), or one rank per
process, ``python benchmarks/agreement.py 10000 2026 --rank 1`` (then 2 and 3; each writes its part next to
the data file, chunk by chunk: a run stopped early keeps the points it compared) and
``python benchmarks/agreement.py --merge``, which writes the number of points compared and drawn. Most of
the time is the tightened quadrature. Points span rank 1, 2 and 3 (a third each),
c in [0.05, 20] and gamma in [1e-6, 1e3] (log-uniform), d != 0, a_1 of either sign, 0 at 3% of the points
and in (1e-8, 1e-2) at 2% (tests/_support/forms.py). The algebraic form (``form="algebraic"``) is
compared with the quadrature form at a tightened tolerance (1e-10, else 1e-9: Phi to 1e-9 relative, E to
1e-9 relative or 1e-10 absolute, as the systems measure E absolutely) and at its default tolerance
(1e-8). Every point where they disagree, or where one refuses, is written to the data file with a
category that explains it; where both answer and disagree, an independent 40-digit solution
(tests/_support/mp_reference.py) says which one is right. Prints the summary and the largest
differences among the agreeing points.

With ``--auto`` (e.g. ``python benchmarks/agreement.py 10000 2027 --auto``, or per rank and ``--auto --merge``)
it measures ``form="auto"`` instead, the default form, and writes tests/data/auto_agreement.json (with
``--jit always``: the compiled code of ``symrmt[fast]``, tests/data/auto_agreement_compiled.json): how many
points auto answers algebraically, how many it refers to the quadrature (by the estimated error of its
unknowns, symrmt.theory.forms.NEWTON_ERROR_CEILING), its largest differences from the tightened quadrature where it answers
algebraically, and every point where it disagrees with the quadrature, with the 40-digit solution there
(tests/_support/forms.compare_auto).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

from symrmt.runtime import jit

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "tests"))

from _support.forms import AGREEMENT, agree, compare, compare_auto, random_points
from _support.mp_reference import reference as mp_reference

OUT = pathlib.Path(__file__).parents[1] / "tests" / "data" / "algebraic_disagreements.json"
#: The data file of ``--auto``.
AUTO_OUT = OUT.with_name("auto_agreement.json")
#: The data file of ``--auto --jit always``: the same measure of the compiled code (symrmt[fast]).
COMPILED_OUT = OUT.with_name("auto_agreement_compiled.json")
#: Points compared at a time (each chunk is saved to the part file when done).
CHUNK = 50

#: Why a point is listed, by category (the data file carries the category and this text).
EXPLANATIONS = {
    "small a_1": "0 < |a_1| < A1_FLOOR sqrt(nu): the general algebraic form divides by a_1 (a root of det M is of order "
                 "1/a_1^2) and is refused by design; form='auto' solves these points by quadrature.",
    "algebraic stalls": "the algebraic form's solver refuses: its continuation stalls, or it ends on a solution with "
                        "Phi < 0 that the admissible range refuses (seen at c in [1.7, 4.6] with b <= 0.3); "
                        "form='auto' solves the point by quadrature.",
    "quadrature refuses": "the quadrature cannot certify its tightened tolerance with MAX_NODES nodes (small gamma: the "
                          "spectrum, or a root of det M, reaches 0); compared at its default tolerance where it can.",
    "quadrature off": "both answer and disagree; the independent 40-digit solution agrees with the algebraic form to "
                      "1e-9 and not with the quadrature, whose tolerance bounds the error of its embedded coarse rule "
                      "(and, at the default 1e-6, allows this difference).",
    "rank one": "a_1 = 0: the rank-one algebraic route (Sherman-Morrison) loses digits when a root of det M nears 0 "
                "(small gamma); form='auto' solves a_1 = 0 by quadrature. The 40-digit solution sides with the "
                "quadrature.",
    "both off": "both forms are off from the 40-digit solution by more than 1e-9 (c <= 0.7 and gamma <= 4e-5: Phi ~ "
                "1/gamma, 1e4 to 7e5, is a Woodbury difference that amplifies the float64 round-off of the unknowns, "
                "in either form; the algebraic form by up to 3.3e-8, the quadrature by up to 6.4e-8). form='auto' "
                "answers these points algebraically: float64's floor, not a wrong root (largest unknown >= 2.5e5).",
    "algebraic off": "the 40-digit solution sides with the quadrature: the algebraic form is off by 7e-11 to 1e-8 (Phi, "
                     "relative; E by up to 2e-9). At two points (c = 7.8 and 15.7, b <= 0.12) N's complex pair of "
                     "eigenvalues is nearly repeated (zeta_j up to 4e3) and the residual stays at the round-off of its "
                     "evaluation: the estimated error of the unknowns (symrmt.solve.exact.newton_error) is 9e-10 and "
                     "1.7e-9, above NEWTON_ERROR_CEILING, and form='auto' solves them by quadrature. The others have "
                     "c < 0.4, gamma <= 1.4e-5 and Phi ~ 1/gamma >= 4e4: the float64 floor of 'both off', where the "
                     "quadrature happened to be closer; form='auto' answers them algebraically (off by at most 6e-9).",
}


def _adjudicate(record: dict) -> str:
    """The category of a listed point (see EXPLANATIONS)."""
    from symrmt.derive import attention_system
    from symrmt.derive import symbols as S
    from symrmt.derive.symbols import gram_positions

    if record["algebraic"] is None:
        return "small a_1" if "loses digits" in record["algebraic_refusal"] else "algebraic stalls"
    quadrature = record["quadrature_tight"] or record["quadrature_default"]
    if quadrature is None or (record["quadrature_tight"] is None and record["agrees"] and record["agrees_with_default"]):
        return "quadrature refuses"
    rank = record["rank"]
    names = {str(k): k for k in [S.c, S.gamma, S.a1, S.b, S.d, *gram_positions(rank)]}
    point = {names[k]: v for k, v in record["point"].items()}
    start = dict(zip(attention_system(rank).unknowns, record["unknowns"]))       # t of the algebraic form
    phi, error = mp_reference(attention_system(rank), point, start)
    record["reference"] = {"Phi": phi, "E": error}
    ok = {side: bool(agree(values["Phi"], phi, AGREEMENT) and agree(values["E"], error, AGREEMENT, True))
          for side, values in (("algebraic", record["algebraic"]), ("quadrature", quadrature))}
    if ok["algebraic"]:
        return "quadrature off" if record["quadrature_tight"] is not None or not record["agrees_with_default"] \
            else "quadrature refuses"
    if point[S.a1] == 0:
        return "rank one"
    return "algebraic off" if ok["quadrature"] else "both off"


def _rank(rank: int, size: int, seed: int, chunk: int = CHUNK, auto: bool = False) -> None:
    """Compare the ``size`` random points of ``rank`` (seeded by seed and rank) chunk by chunk.

    Each chunk's listed points and statistics are appended to the part file as soon as they are known,
    so a run stopped early has compared exactly the points its part file counts (the first ones of the
    draw, a uniform random subset of it).
    """
    sample = random_points(np.random.default_rng([seed, rank]), size, rank)
    part_file = _out(auto).with_suffix(f".rank{rank}.json")
    part = {"drawn": size, "seed": seed, "rank": rank, "chunks": []}
    start = time.perf_counter()
    for first in range(0, size, chunk):
        points = {k: v[first: first + chunk] for k, v in sample.items()}
        if auto:
            listed, differences = compare_auto(rank, points)
        else:
            listed, differences = compare(rank, points)
            for record in listed:
                record["category"] = _adjudicate(record)
        part["chunks"].append({"points": len(next(iter(points.values()))), "listed": listed, **differences})
        part_file.write_text(json.dumps(part))
        done = sum(c["points"] for c in part["chunks"])
        print(f"rank {rank}: {done} of {size} points, {sum(len(c['listed']) for c in part['chunks'])} listed "
              f"({time.perf_counter() - start:.0f} s)", flush=True)


def _out(auto: bool) -> pathlib.Path:
    """The data file this run writes: of the algebraic form, of auto, or of auto as compiled code."""
    if not auto:
        return OUT
    return AUTO_OUT if jit.current_mode() == "never" else COMPILED_OUT


def _statistics(chunks: list) -> dict:
    """One rank's statistics from its chunks': counts add up, largest differences are the largest."""
    keys = [key for key in chunks[0] if key not in ("listed", "points")]
    return {"points": sum(c["points"] for c in chunks), "listed": sum(len(c["listed"]) for c in chunks),
            **{key: (max if key.startswith("max") else sum)(c[key] for c in chunks) for key in keys}}


def _write(records: list, statistics: dict) -> None:
    counts: dict = {}
    for record in records:
        counts[record["category"]] = counts.get(record["category"], 0) + 1
    statistics["categories"] = counts
    OUT.write_text(json.dumps({"statistics": statistics, "explanations": EXPLANATIONS, "points": records}, indent=1))
    print(json.dumps(statistics, indent=1))


def main(points: int = 10_000, seed: int = 2026, ranks: tuple = (1, 2, 3), chunk: int = CHUNK,
         auto: bool = False) -> None:
    sizes = dict(zip((1, 2, 3), np.diff(np.linspace(0, points, 4).astype(int))))
    for rank in ranks:
        _rank(rank, int(sizes[rank]), seed, chunk, auto)


def merge(auto: bool = False) -> None:
    """The data file from the three parts (then removed): the points compared, of the points drawn."""
    out = _out(auto)
    parts = [json.loads(out.with_suffix(f".rank{rank}.json").read_text()) for rank in (1, 2, 3)]
    by_rank = {part["rank"]: {"drawn": part["drawn"], **_statistics(part["chunks"])} for part in parts}
    statistics = {"points": sum(r["points"] for r in by_rank.values()),
                  "drawn": sum(r["drawn"] for r in by_rank.values()), "seed": parts[0]["seed"], "by rank": by_rank}
    records = [record for part in parts for chunk in part["chunks"] for record in chunk["listed"]]
    if auto:
        out.write_text(json.dumps({"statistics": statistics, "points": records}, indent=1))
        print(json.dumps(statistics, indent=1))
    else:
        _write(records, statistics)
    for rank in (1, 2, 3):
        out.with_suffix(f".rank{rank}.json").unlink()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("points", type=int, nargs="?", default=10_000)
    parser.add_argument("seed", type=int, nargs="?", default=2026)
    parser.add_argument("--rank", type=int, choices=(1, 2, 3), help="only this rank (its part of the data file)")
    parser.add_argument("--merge", action="store_true", help="write the data file from the three parts")
    parser.add_argument("--chunk", type=int, default=CHUNK, help="points compared (and saved) at a time")
    parser.add_argument("--auto", action="store_true", help="measure form='auto' (writes tests/data/auto_agreement.json)")
    parser.add_argument("--jit", choices=jit.MODES, default="never",
                        help="the rule for compiled code (symrmt.runtime.jit; default never: the data files in tests/data "
                             "measure the NumPy code, which the compiled code matches to round-off, "
                             "tests/solve/test_native_path.py; 'always' measures the compiled code of symrmt[fast])")
    options = parser.parse_args()
    with jit.mode(options.jit):
        if options.merge:
            merge(options.auto)
        else:
            main(options.points, options.seed, (options.rank,) if options.rank else (1, 2, 3), options.chunk,
                 options.auto)
            if not options.rank:
                merge(options.auto)
