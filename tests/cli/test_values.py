"""``symrmt.cli.values``: the number lists, grids, ``--gram`` and ``--param`` parsers, through the command line."""
from __future__ import annotations

import pytest

from .runner import assert_refused

THEORY = ["theory", "--f", "tanh(x)", "--c", "1"]


@pytest.mark.parametrize("argv, needle", [
    ([*THEORY, "--gamma", "1,,2"], "empty item"),
    ([*THEORY, "--gamma", ",1"], "empty item"),
    ([*THEORY, "--gamma", "1e-3:1:"], "empty item"),
    ([*THEORY, "--gamma", "1:2:3:4"], "three parts"),
    ([*THEORY, "--gamma", "0:1:5"], "finite numbers > 0"),
    ([*THEORY, "--gamma", "1:inf:5"], "finite numbers > 0"),
    ([*THEORY, "--gamma", "1:2:1e9"], "LO:HI:NUM"),
    ([*THEORY, "--gamma", "nan"], "finite"),
])
def test_bad_number_lists_are_one_line_and_exit_2(capsys, argv, needle):
    assert_refused(capsys, argv, needle)
