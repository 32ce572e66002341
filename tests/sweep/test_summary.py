"""symrmt.sweep.summary: means and standard errors over seeds, and their CSV."""
from __future__ import annotations

import csv
import json
import os

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


def test_a_record_written_twice_is_one_seed_in_the_summary(tiny_run, tmp_path):
    _, finished = tiny_run
    once, twice = tmp_path / "once.jsonl", tmp_path / "twice.jsonl"
    once.write_bytes(finished)
    twice.write_bytes(finished + finished.splitlines(keepends=True)[2])
    _, rows = summarize(once)
    with pytest.warns(UserWarning, match="each point is counted once"):
        info, rows_twice = summarize(twice)
    # Counted twice, the mean and se would move and seeds would read 4 (as before the store's checks).
    assert info["finished"] == 3 and rows_twice == rows and {r["seeds"] for r in rows} == {3}


@pytest.mark.parametrize("name, reason", [("x" * 300 + ".csv", "File name too long"),
                                          ("notes.txt/summary.csv", "Not a directory"),
                                          ("/dev/full", "No space left on device")])
def test_a_csv_that_cannot_be_written_is_an_input_error(tiny_run, tmp_path, capsys, name, reason):
    from symrmt.errors import SymrmtInputError
    from symrmt.sweep import write_summary_csv

    if name == "/dev/full" and not os.path.exists(name):
        pytest.skip("no /dev/full here")
    _, finished = tiny_run
    results = tmp_path / "results.jsonl"
    results.write_bytes(finished)
    (tmp_path / "notes.txt").write_text("notes\n")
    target = os.path.join(str(tmp_path), name)
    with pytest.raises(SymrmtInputError, match=reason):
        write_summary_csv(summarize(results)[1], target)
    assert main(["sweep", "--summary", str(results), "--csv", target]) == 2   # the CLI may refuse it first
    assert capsys.readouterr().err.count("\n") == 1 and results.read_bytes() == finished
