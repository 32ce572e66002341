"""Hostile inputs of ``symrmt heads``: each refused with exit 2 and one line, and an existing --csv left as it was."""
from __future__ import annotations

import pytest

from .harness import Case, run_case

TWO = "[[1,1,0,1,0],[1,1,0,1,0],[0,0,1.44,0,1.44],[1,1,0,1,0],[0,0,1.44,0,1.44]]"
BASE = ["heads", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1"]


def _old_csv(folder) -> None:
    (folder / "old.csv").write_text("gamma,attention,linear\n0.1,0.5,0.5\n")


CASES = [
    Case("heads-zero", [*BASE, "--heads", "0", "--gram", TWO], "heads"),
    Case("heads-negative", [*BASE, "--heads=-2", "--gram", TWO], "heads"),
    Case("heads-not-a-divisor", [*BASE, "--heads", "3", "--gram", TWO], "not a multiple of 3"),
    Case("heads-not-an-integer", [*BASE, "--heads", "1.5", "--gram", TWO], "--heads"),
    Case("gram-even-size", [*BASE, "--heads", "1", "--gram", "[[1,0],[0,1]]"], "shape"),
    Case("gram-not-json", [*BASE, "--heads", "1", "--gram", "[[1,0,0],"], "not valid JSON"),
    Case("gram-not-psd", [*BASE, "--heads", "1", "--gram", "[[1,2,0],[2,1,0],[0,0,1]]"], "gram"),
    Case("gram-nan", [*BASE, "--heads", "1", "--gram", "[[1,0,0],[0,NaN,0],[0,0,1]]"], "gram"),
    Case("f-uncentered", ["heads", "--f", "tanh(x)+1", "--c", "1", "--gamma", "0.1", "--heads", "1", "--gram",
                          "[[1,0,0],[0,1,0],[0,0,1]]"], "center"),
    Case("csv-wrong-extension", [*BASE, "--heads", "1", "--gram", "[[1,0,0],[0,1,0],[0,0,1]]", "--csv",
                                 "{tmp}/out.txt"], "--csv"),
    Case("csv-kept-on-refusal", [*BASE, "--heads", "3", "--gram", TWO, "--csv", "{tmp}/old.csv"],
         "not a multiple of 3", setup=_old_csv, kept=["old.csv"]),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_heads_refuses_with_one_line(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)
