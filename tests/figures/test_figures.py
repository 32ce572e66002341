"""Smoke tests of the figures: each one in quick mode writes a PNG and a CSV of exactly what it plots."""
import csv

import numpy as np
import pytest

from symrmt.figures import FIGURES, csv_rows, run
from symrmt.figures._core import FIXED_COLUMNS

def _run_quick(name, tmp_path):
    return run(name, quick=True, out=tmp_path)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_quick_figure_writes_png_and_csv_of_the_plotted_numbers(name, tmp_path):
    written = _run_quick(name, tmp_path)
    png, table, figure = written["png"], written["csv"], written["figure"]
    assert png == tmp_path / f"{name}.png" and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with table.open(newline="") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    expected_header, expected_rows = csv_rows(figure)
    assert header == expected_header
    assert header[:len(FIXED_COLUMNS)] == list(FIXED_COLUMNS) and header[-2:] == ["value", "se"]
    # One row per drawn point, in drawing order, with the drawn value.
    points = sum(curve.value.size for _, curve in figure.curves())
    assert len(body) == points == len(expected_rows)
    drawn = np.concatenate([curve.value.ravel() for _, curve in figure.curves()])
    np.testing.assert_allclose([float(r[header.index("value")]) for r in body], drawn, rtol=1e-15)
    assert {r[header.index("source")] for r in body} == {"theory", "monte_carlo"}
    # Every Monte Carlo point carries its n, seeds and a standard error; theory points carry none.
    for r in body:
        if r[header.index("source")] == "monte_carlo":
            assert r[header.index("n")] and r[header.index("seeds")] and r[header.index("se")]
        else:
            assert r[header.index("se")] == ""
    assert figure.caption and figure.title
    for panel in figure.panels:
        assert panel.xlabel and (panel.ylabel or panel.heatmap)


def test_random_inputs_csv_agrees_with_an_independent_theory_call(tmp_path):
    """Spot check: a theory row of the CSV is what attention_error returns for its parameters."""
    import symrmt

    table = run("random_inputs", quick=True, out=tmp_path)["csv"]
    with table.open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["f"] == "tanh" and r["source"] == "theory" and r["panel"] == "a"]
    row = rows[len(rows) // 2]
    expected = symrmt.attention_error("tanh(x)", float(row["c"]), float(row["gamma"]))
    assert float(row["value"]) == pytest.approx(float(expected), rel=1e-9)


def test_unknown_figure_is_refused_with_the_list():
    from symrmt.errors import SymrmtInputError

    with pytest.raises(SymrmtInputError, match="random_inputs"):
        run("no_such_figure", quick=True)


def test_rank_gram_matrix_has_equal_total_strength():
    from symrmt.figures.rank import STRENGTH, gram_matrix

    for r in (1, 2, 3):
        for placement in ("spread", "half aligned"):
            G = gram_matrix(r, placement)
            assert G.shape == (1 + 2 * r, 1 + 2 * r)
            assert np.trace(G[1:1 + r, 1:1 + r]) == pytest.approx(STRENGTH**2)      # sum_k |w_K^(k)|^2
            assert G[0, 0] == pytest.approx(1.0) and np.linalg.eigvalsh(G).min() > -1e-12


def test_rank_figure_placements_inside_the_span_coincide():
    # Equal strengths on orthonormal w_K^(k) = w_Q^(k): W_K^T W_Q - I is a multiple of the projector on
    # their span, so where mu sits inside the span cannot matter (the docstring's symmetry).
    from symrmt.figures.rank import gram_matrix
    from symrmt.theory import attention_error

    spread = gram_matrix(3, "spread")
    along_first = spread.copy()
    along_first[0, 1:] = along_first[1:, 0] = 0.0
    along_first[0, 1] = along_first[1, 0] = along_first[0, 4] = along_first[4, 0] = spread[0, 1] * np.sqrt(3)
    gamma = np.array([0.05, 0.5])
    assert np.allclose(attention_error((0.6, 0.4), 1.0, gamma, gram=spread),
                       attention_error((0.6, 0.4), 1.0, gamma, gram=along_first), rtol=0, atol=1e-10)
