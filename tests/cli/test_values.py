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


@pytest.mark.parametrize("argv, needle", [
    ([*THEORY, "--gamma", "0.1", "--gram", "[" * 100_000 + "]" * 100_000], "nested too deeply"),
    ([*THEORY, "--gamma", "0.1", "--gram", "[" * 3000 + "1" + "]" * 3000], "nested too deeply"),
    ([*THEORY, "--gamma", "0.1", "--gram", "[[1, 0, 0], [0, 1, 0], [0, 0, 1]" + "x" * 5000],
     "(5032 characters)"),                                                # a long flag is cut in the message
    ([*THEORY, "--gamma", ",".join(["0.1"] * 100_001)], "at most 100000"),
    (["spectrum", "--f", "tanh(x)", "--c", "1", "--x", ",".join(["0.1"] * 100_001)], "at most 100000"),
])
def test_oversized_flags_are_one_line_and_exit_2(capsys, argv, needle):
    err = assert_refused(capsys, argv, needle)
    assert len(err) < 600


@pytest.mark.parametrize("formula", ["x\udcff", "x\x00", "-" * 100_000 + "x", "(" * 300 + "x" + ")" * 300])
def test_formulas_python_cannot_parse_are_refused_by_the_parser_of_f(capsys, formula):
    """The names of f are read before f is parsed: what Python's own parser chokes on goes to the parser of f."""
    for argv in ([*THEORY, "--gamma", "0.1", f"--f={formula}"], ["latex", f"--f={formula}"]):
        assert_refused(capsys, argv, "nonlinearity")
