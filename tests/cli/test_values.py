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


# ------------------------------------------------------------- one grid grammar on every axis

@pytest.mark.parametrize("argv, axis, expected", [
    (["theory", "--f", "tanh(x)", "--c", "0.5:2:4", "--gamma", "0.1"], "c", [0.5, 1.0, 1.5, 2.0]),
    (["theory", "--f", "tanh(x)", "--c", "0.1:10:3log", "--gamma", "0.1"], "c", [0.1, 1.0, 10.0]),
    (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1:10:3log", "--diag", "0:1:3"], "diag", [0.0, 0.5, 1.0]),
    (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1:10:3log", "--diag", "0:1:3"], "gamma", [0.1, 1.0, 10.0]),
    (["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1:2:3LOG", "--mu-norm", "1:2:2"], "gamma",
     [1.0, 2 ** 0.5, 2.0]),
])
def test_lo_hi_num_is_evenly_spaced_and_the_log_suffix_log_spaced_on_every_axis(capsys, argv, axis, expected):
    from .runner import run_json

    points = run_json(capsys, *argv)["points"]
    values = sorted({p[axis] for p in points})
    assert values == pytest.approx(expected, rel=1e-12)


def test_param_and_x_grids_take_the_same_grammar(capsys):
    from .runner import run_json

    out = run_json(capsys, "hermite", "--f", "tanh(s*x)", "--param", "s=0.1:10:3log")
    assert out["params"]["s"] == pytest.approx([0.1, 1.0, 10.0], rel=1e-12)
    out = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0.5:2:4", "--eta", "0.1")
    assert out["x"] == pytest.approx([0.5, 1.0, 1.5, 2.0], rel=1e-12)


def test_a_gamma_grid_without_log_keeps_its_old_log_spacing_with_a_one_line_warning(capsys):
    """The old meaning of --gamma LO:HI:NUM (log-spaced) still holds for one release, and stderr says how to write it."""
    from .runner import run

    status, out, err = run(capsys, *THEORY, "--gamma", "0.01:10:4", "--json")
    assert status == 0
    import json

    assert json.loads(out)["gamma"] == pytest.approx([0.01, 0.1, 1.0, 10.0], rel=1e-12)
    assert err.count("\n") == 1 and "write 0.01:10:4log" in err and err.startswith("symrmt: warning:"), err
    status, _, err = run(capsys, *THEORY, "--gamma", "0.01:10:4log")
    assert status == 0 and err == ""


def test_help_states_the_grammar_and_gamma_has_help(capsys):
    from symrmt.cli import main

    assert main(["theory", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "LO:HI:NUM is NUM evenly spaced values, LO:HI:NUMlog NUM log-spaced ones" in text
    assert "--gamma G1,G2,...|LO:HI:NUM[log] the ridge(s) gamma > 0" in text


def test_the_grammar_refuses_a_log_grid_that_is_not_positive_and_a_bad_suffix(capsys):
    assert_refused(capsys, [*THEORY, "--gamma", "0.1", "--c", "-1:1:3log"], "> 0 (a log grid)")
    assert_refused(capsys, [*THEORY, "--gamma", "0.1", "--c", "0.5:1:3lin"], "NUM an integer")
