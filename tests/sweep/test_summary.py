"""symrmt.sweep.summary: means and standard errors over seeds, and their CSV."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from symrmt.cli import main
from symrmt.sweep import summarize


def test_summary_csv_has_the_means_and_standard_errors_over_seeds(local_run, tmp_path, capsys):
    _, _, out, records = local_run
    path = tmp_path / "summary.csv"
    assert main(["sweep", "--summary", str(out), "--csv", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "16 of 16 points" in printed and f"CSV written to {path}" in printed
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 2 * 2 * 2 * 3        # (c, geometry, n) settings x gamma
    for row in rows:
        group = [r for r in records if r["c"] == float(row["c"]) and r["n"] == int(row["n"])
                 and json.dumps(r["geometry"], sort_keys=True, separators=(",", ":")) == row["geometry"]]
        i = group[0]["gamma"].index(float(row["gamma"]))
        for name in ("attention", "linear"):
            values = np.array([r["mc"][name][i] for r in group])
            assert int(row["seeds"]) == len(values) == 2
            assert float(row[f"{name}_mean"]) == pytest.approx(values.mean(), rel=1e-14)
            assert float(row[f"{name}_se"]) == pytest.approx(values.std(ddof=1) / np.sqrt(2), rel=1e-12)
            assert float(row[f"{name}_theory"]) == group[0]["theory"][name][i]


def test_summary_default_csv_sits_next_to_the_file(local_run):
    _, _, out, _ = local_run
    info, rows = summarize(out)
    assert info["finished"] == 16 and rows[0]["f"] == "tanh(x)"
    assert main(["sweep", "--summary", str(out), "--json"]) == 0
    assert out.with_name("results.summary.csv").exists()


def test_one_seed_has_no_standard_error():
    from symrmt.sweep.summary import _mean_se

    assert _mean_se([[0.25, 0.5]]) == ([0.25, 0.5], [None, None])   # JSON null / empty CSV cell, never NaN
