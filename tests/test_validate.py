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
