"""``symrmt.cli.parser``: argparse's refusals cut to one line, exit 2."""
from __future__ import annotations

import pytest

from .runner import assert_refused


@pytest.mark.parametrize("argv, needle", [
    (["theory", "--f", "tanh(x)", "--c", "1"], "required"),
    (["theory", "--f", "tanh(x)", "--c", "one", "--gamma", "0.1"], "invalid float"),
    (["nonsense"], "invalid choice"),
])
def test_argparse_refusals_are_one_line_and_exit_2(capsys, argv, needle):
    assert_refused(capsys, argv, needle)
