"""symrmt.validate: one validator per kind of argument, each refusing what is not a number of that kind."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from symrmt import validate
from symrmt.errors import ParameterError

#: Not numbers at all, or not real and finite: refused by every validator.
NEVER = {"bool": True, "numpy bool": np.bool_(False), "text": "1", "bytes": b"1", "complex": 1 + 0j,
         "numpy complex": np.complex128(1.0), "None": None, "empty": [], "nan": float("nan"), "inf": np.inf,
         "-inf": -np.inf, "ragged": [[1.0], [1.0, 2.0]], "dict": {"a": 1}, "list of text": ["1"]}

VALIDATORS = {
    "real_scalar": lambda v: validate.real_scalar("arg", v),
    "positive_scalar": lambda v: validate.positive_scalar("arg", v),
    "integer": lambda v: validate.integer("arg", v, 0),
    "real_array": lambda v: validate.real_array("arg", v),
    "positive_array": lambda v: validate.positive_array("arg", v),
    "positive_grid": lambda v: validate.positive_grid("arg", v),
    "choice": lambda v: validate.choice("arg", v, ("a", "b")),
}


@pytest.mark.parametrize("kind", VALIDATORS)
@pytest.mark.parametrize("value", NEVER, ids=list(NEVER))
def test_every_validator_refuses_in_one_line_that_names_the_argument(kind, value):
    value = NEVER[value]
    with pytest.raises(ParameterError, match=r"^arg\b") as info:
        VALIDATORS[kind](value)
    assert "\n" not in str(info.value)


def test_what_each_accepts():
    assert validate.real_scalar("x", np.float32(0.5)) == 0.5 and validate.real_scalar("x", Fraction(1, 4)) == 0.25
    assert validate.real_scalar("x", np.array(-2)) == -2.0 and validate.real_scalar("x", 3) == 3.0
    assert validate.positive_scalar("x", 1e-300) == 1e-300
    assert validate.integer("n", np.int64(7), 2) == 7 and type(validate.integer("n", 7, 2)) is int
    assert validate.real_array("x", [[1, -2]]).dtype == np.float64
    assert validate.real_array("x", [np.nan], finite=False).shape == (1,)
    np.testing.assert_array_equal(validate.positive_array("x", [[1.0, 2.0]]), [[1.0, 2.0]])
    np.testing.assert_array_equal(validate.positive_grid("x", 0.5), [0.5])
    assert validate.choice("method", "exact", ("auto", "exact")) == "exact"


@pytest.mark.parametrize("call, match", [
    (lambda: validate.real_scalar("c", [1.0, 2.0]), "single real number"),
    (lambda: validate.real_scalar("c", 10**400), r"^c = <an integer of 401 digits>: must be finite\.$"),
    (lambda: validate.positive_scalar("c", 0.0), r"c = 0.0: must be > 0"),
    (lambda: validate.positive_scalar("c", -1, "c is p/n."), r"must be > 0\. c is p/n\.$"),
    (lambda: validate.integer("n", 2.0, 2), "must be an integer >= 2"),
    (lambda: validate.integer("n", 1, 2, "Use n >= 2."), r"n = 1: must be >= 2\. Use n >= 2\.$"),
    (lambda: validate.positive_array("x", [1.0, 0.0]), "every value must be > 0"),
    (lambda: validate.positive_grid("gamma", [[0.1, 1.0]]), r"gamma has shape \(1, 2\)"),
    (lambda: validate.positive_grid("gamma", [0.1, -1.0, 0.0]), r"gamma contains \[-1.0, 0.0\]"),
    (lambda: validate.choice("method", "fast", ("auto", "exact")), "must be one of 'auto', 'exact'"),
    (lambda: validate.choice("method", np.array(["auto"]), ("auto",)), "must be one of"),
])
def test_messages_say_what_is_expected(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


def test_a_masked_entry_is_refused_and_an_unmasked_masked_array_read():
    from symrmt.validate import real_array

    with pytest.raises(ParameterError, match="x = .*has masked entries"):
        real_array("x", np.ma.masked_array([1.0, 2.0], mask=[False, True]))
    assert real_array("x", np.ma.masked_array([1.0, 2.0], mask=[False, False])).tolist() == [1.0, 2.0]


def _one_line(calls) -> str:
    """The one message every call refuses with: the same type, the same single line."""
    refusals = set()
    for call in calls:
        with pytest.raises(ParameterError) as info:
            call()
        refusals.add((type(info.value), str(info.value)))
    assert len(refusals) == 1, refusals
    kind, message = refusals.pop()
    assert "\n" not in message
    return message


@pytest.mark.parametrize("value", [0, -1.0, "x", 0.01, float("nan"), True])
def test_the_temperature_is_read_by_one_reader_for_the_theory_and_the_monte_carlo(value, capsys):
    """Issue 38 item 2: softmax's temperature is refused in the same line by the theory, the registry, the Monte
    Carlo and the command line (one reader, symrmt.validate.temperature)."""
    from symrmt import simulate
    from symrmt.cli import main
    from symrmt.theory import solve_model
    from symrmt.theory.softmax import softmax_error, softmax_hermite

    message = _one_line([lambda: validate.temperature(value), lambda: validate.temperature(value, array=True),
                         lambda: softmax_hermite(value), lambda: softmax_error(1.0, 0.1, temperature=value),
                         lambda: solve_model("softmax", c=1.0, gamma=0.1, temperature=value),
                         lambda: simulate(None, 32, 1.0, 0.1, seeds=2, attention="softmax", temperature=value,
                                          progress=False)])
    # The command line hands the number on (nan and inf are refused before, as for every float flag: not a number)
    if isinstance(value, float) and np.isfinite(value):
        for argv in (["theory"], ["simulate", "--n", "32", "--quiet"]):
            assert main([*argv, "--attention", "softmax", "--temperature", str(value), "--c", "1", "--gamma",
                         "0.1"]) == 2
            assert capsys.readouterr().err.strip() == f"symrmt {argv[0]}: error: {message}"


@pytest.mark.parametrize("value", [0, -2, 1.5, "2", True, 3])
def test_the_head_count_is_read_by_one_reader_for_the_theory_and_the_monte_carlo(value, capsys):
    """The number of heads: the same line from validate.heads, the summed heads' theory, the registry and the Monte
    Carlo (3 heads of a Gram matrix with 2 weight pairs: not a divisor)."""
    from symrmt.simulation.heads import simulate_heads
    from symrmt.theory import solve_model
    from symrmt.theory.heads import averaged_gram, summed_heads_error

    gram = np.diag([1.0, 1.0, 0.5, 1.0, 0.5])
    _one_line([lambda: validate.heads(value, pairs=2), lambda: averaged_gram(gram, value),
               lambda: summed_heads_error("tanh(x)", 1.0, 0.1, gram, heads=value),
               lambda: solve_model("summed_heads", f="tanh(x)", c=1.0, gamma=0.1, gram=gram, heads=value),
               lambda: simulate_heads(np.tanh, n=32, c=1.0, gamma=0.1, gram=gram, heads=value, seeds=2,
                                      progress=False)])


def test_no_temperature_is_the_default_for_the_theory_and_the_monte_carlo():
    """None is the default temperature for every reader (the simulator took it as 1, the theory refused it)."""
    from symrmt.theory.softmax import softmax_error

    assert validate.temperature(None) == validate.DEFAULT_TEMPERATURE == 1.0
    assert softmax_error(1.0, 0.1, temperature=None) == softmax_error(1.0, 0.1, temperature=1.0)


def test_beyond_gamma_is_the_comparison_with_the_largest_ridge():
    top = validate.DOMAINS["gamma"][1]
    assert validate.beyond_gamma(np.array([top, np.nextafter(top, np.inf), np.nan])).tolist() == [False, True, True]
