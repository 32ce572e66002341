"""``symrmt.cli.arguments``: the shared flag groups (c, gamma, geometry, --gram, Monte Carlo) and their checks."""
from __future__ import annotations

import json

import numpy as np
import pytest

from symrmt.cli import main

from .runner import assert_refused, run, run_json

THEORY = ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1"]


@pytest.mark.parametrize("argv", [
    ["theory", "--f", "tanh(x)", "--c", "0", "--gamma", "0.1"],
    ["theory", "--f", "tanh(x)", "--c", "-1", "--gamma", "0.1"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "-0.1,1"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "abc"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--mu-norm", "1", "--wk-norm", "1",
     "--wq-norm", "1", "--cos-mu-wk", "1", "--cos-mu-wq", "-1", "--cos-wk-wq", "1"],
    ["simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--n", "1"],
])
def test_bad_input_exits_2_with_a_message(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and "error" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, needle", [
    ([*THEORY, "--diag", "nan"], "--diag 'nan'"),
    ([*THEORY, "--diag", "inf"], "--diag 'inf'"),
    ([*THEORY, "--mu-norm=-inf"], "--mu-norm '-inf'"),
    (["theory", "--f", "tanh(x)", "--c", "nan", "--gamma", "0.1"], "--c 'nan'"),
])
def test_non_finite_numbers_are_one_line_and_exit_2(capsys, argv, needle):
    assert_refused(capsys, argv, needle)


def test_gram_flag_equals_the_six_geometry_flags(capsys):
    flags = ["--mu-norm", "1.2", "--wk-norm", "0.8", "--wq-norm", "1.1", "--cos-mu-wk", "0.3",
             "--cos-mu-wq", "-0.5", "--cos-wk-wq", "0.2"]
    from symrmt.geometry import Geometry

    G = Geometry(1.2, 0.8, 1.1, 0.3, -0.5, 0.2).gram().tolist()
    common = ["theory", "--f", "tanh(x)", "--c", "1.3", "--gamma", "0.05,0.5,5"]
    by_flags = run_json(capsys, *common, *flags)
    by_gram = run_json(capsys, *common, "--gram", json.dumps(G))
    assert np.allclose(by_flags["attention"], by_gram["attention"], rtol=0, atol=1e-10)
    assert main([*common, "--gram", json.dumps(G), "--mu-norm", "1"]) == 2
    assert main([*common, "--gram", "[[1, 2], [2, 1]]"]) == 2
    assert main([*common, "--gram", "__import__('os')"]) == 2
