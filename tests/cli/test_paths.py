"""``symrmt.cli.paths``: output files are checked before anything is computed."""
from __future__ import annotations

import time

import pytest

from .runner import run

COMPARE = ["compare", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--n", "200000", "--seeds", "2"]


@pytest.mark.parametrize("plot, needle", [
    ("{tmp}/missing/folder/cmp.png", "does not exist"),
    ("{tmp}", "is a folder"),
    ("{tmp}/", "is a folder"),
    ("{tmp}/cmp.xyz", "unknown extension"),
    ("{tmp}/cmp", "unknown extension"),
])
def test_compare_plot_is_checked_before_computing(capsys, tmp_path, plot, needle):
    start = time.monotonic()
    status, out, err = run(capsys, *COMPARE, "--plot", plot.format(tmp=tmp_path))
    assert status == 2 and needle in err and out == ""
    assert time.monotonic() - start < 20          # n = 200000 would take far longer: nothing was computed
