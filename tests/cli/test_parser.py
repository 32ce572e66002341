"""``symrmt.cli.parser``: argparse's refusals cut to one line, exit 2."""
from __future__ import annotations

import pytest

from .runner import assert_refused


@pytest.mark.parametrize("argv, needle", [
    (["theory", "--f", "tanh(x)", "--c", "1"], "required"),
    (["theory", "--f", "tanh(x)", "--c", "one", "--gamma", "0.1"], "--c 'one': give comma-separated numbers or LO:HI:NUM"),
    (["simulate", "--f", "tanh(x)", "--n", "64", "--c", "one", "--gamma", "0.1"], "invalid float"),
    (["nonsense"], "invalid choice"),
])
def test_argparse_refusals_are_one_line_and_exit_2(capsys, argv, needle):
    assert_refused(capsys, argv, needle)


def test_the_method_help_states_the_routes_promise():
    """--method's help says what the routes promise (simulation.linalg.LANCZOS_RTOL), as the README does."""
    import re

    from symrmt.cli import build_parser
    from symrmt.simulation import linalg

    text = build_parser()._subparsers._group_actions[0].choices["simulate"].format_help()
    promised = re.search(r"agree to ([0-9.e-]+) relative", " ".join(text.split())).group(1)
    assert float(promised) == linalg.LANCZOS_RTOL


def test_every_statement_of_the_routes_promise_is_one_number():
    """The README, simulate's docstrings and the routes' modules state the same relative agreement as --method's
    help: LANCZOS_RTOL (tests/simulation/test_routes.py checks the routes meet it)."""
    import pathlib
    import re

    import symrmt.simulation
    from symrmt.simulation import api, linalg, routes

    root = pathlib.Path(__file__).parents[2]
    texts = {"README.md": (root / "README.md").read_text(), "simulate": api.simulate.__doc__,
             "simulate_once": api.simulate_once.__doc__, "routes": routes.__doc__,
             "simulation": symrmt.simulation.__doc__}
    pattern = r"(?:agrees?|gives the same numbers)[^.]{0,60}? to (?:about )?([0-9.e-]+) relative"
    stated = {name: re.findall(pattern, " ".join(text.split())) for name, text in texts.items()}
    assert all(stated.values()), stated
    assert {float(v) for values in stated.values() for v in values} == {linalg.LANCZOS_RTOL}, stated
