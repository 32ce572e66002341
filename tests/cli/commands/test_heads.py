"""``symrmt heads``: the summed heads' theory through the command line, against the library and one averaged head."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from symrmt.theory.heads import averaged_gram, summed_heads_error

from ..runner import assert_refused, run_json

#: (mu, w_K1, w_K2, w_Q1, w_Q2): |mu| = 1; head 1 aligned with mu (norm 1), head 2 orthogonal (norm 1.2), as in
#: tests/test_heads.py and docs/theory.md, section 16.
TWO_HEADS = [[1, 1, 0, 1, 0], [1, 1, 0, 1, 0], [0, 0, 1.44, 0, 1.44], [1, 1, 0, 1, 0], [0, 0, 1.44, 0, 1.44]]
GAMMA = "0.03,0.3,3"


def _heads(capsys, *extra):
    return run_json(capsys, "heads", "--f", "tanh(x)", "--c", "1", "--gamma", GAMMA, "--heads", "2",
                    "--gram", json.dumps(TWO_HEADS), *extra)


def test_heads_prints_the_library_theory_and_the_documented_numbers(capsys):
    out = _heads(capsys)
    expected = summed_heads_error("tanh(x)", 1.0, [0.03, 0.3, 3.0], np.array(TWO_HEADS, float), heads=2)
    np.testing.assert_array_equal(out["attention"], expected)
    assert [round(v, 3) for v in out["attention"]] == [0.079, 0.221, 0.395]      # docs/theory.md, section 16
    assert out["heads"] == 2 and out["rank"] == 1 and len(out["linear"]) == 3


def test_two_heads_are_one_averaged_head_at_gamma_over_h_squared(capsys):
    """The same numbers from ``symrmt theory`` with the averaged Gram matrix at gamma/4: an H^2 left out fails."""
    summed = _heads(capsys)["attention"]
    one = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.0075,0.075,0.75",
                   "--gram", json.dumps(averaged_gram(np.array(TWO_HEADS, float), 2).tolist()))["attention"]
    np.testing.assert_allclose(summed, one, rtol=1e-10)
    planted = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.015,0.15,1.5",
                       "--gram", json.dumps(averaged_gram(np.array(TWO_HEADS, float), 2).tolist()))["attention"]
    assert np.min(np.abs(np.subtract(summed, planted))) > 1e-3


def test_heads_writes_one_csv_row_per_gamma(capsys, tmp_path):
    path = tmp_path / "heads.csv"
    out = _heads(capsys, "--csv", str(path))
    rows = list(csv.reader(path.open()))
    assert rows[0] == ["gamma", "attention", "linear"] and len(rows) == 4
    assert [float(r[1]) for r in rows[1:]] == out["attention"]


@pytest.mark.parametrize("argv, needle", [
    (["--heads", "3", "--gram", json.dumps(TWO_HEADS)], "not a multiple of 3"),
    (["--heads", "0", "--gram", json.dumps(TWO_HEADS)], "heads"),
    (["--heads", "2"], "--gram"),
    (["--gram", json.dumps(TWO_HEADS)], "--heads"),
    (["--heads", "1", "--gram", "[[1, 0], [0, 1]]"], "shape"),
])
def test_heads_refusals_are_one_line(capsys, argv, needle):
    assert_refused(capsys, ["heads", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", *argv], needle)
