"""One rule per kind of argument, across every public function: the same bad value gets the same answer.

Each numeric argument of the public API is of one kind (a ratio c, a ridge gamma, a diagonal d, a
norm, a cosine, a count, a number of digits, ...) and is read by the validator of that kind
(:mod:`symrmt.validate`). So a bad value (text, a boolean, None, complex, an empty or ragged array,
NaN, inf, a value outside the kind's range) is a :class:`~symrmt.errors.ParameterError` whose one
line names the argument, from whichever function it was given to: never NumPy's "need at least one
array to concatenate", a TypeError, a ConvergenceError or a silent conversion ("1" read as 1.0).
A table of named cases pins the classes; a Hypothesis property throws arbitrary objects at them.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import symrmt
from symrmt.errors import ParameterError, SymrmtInputError
from symrmt.theory import kernel_ridge_error, ridgeless_error

TANH = (0.6057055, 0.3942945)

#: function name -> (call with keyword overrides, {argument: kind}); every other argument is valid.
FUNCTIONS = {
    "attention_error": (lambda **kw: symrmt.attention_error(**{"f": TANH, "c": 1.0, "gamma": 0.1, **kw}),
                        {"c": "ratio", "gamma": "ridge", "d": "diagonal"}),
    "solve_attention": (lambda **kw: symrmt.solve_attention(**{"f": TANH, "c": 1.0, "gamma": 0.1, **kw}),
                        {"c": "ratio", "gamma": "ridge", "d": "diagonal"}),
    "kernel_ridge_error": (lambda **kw: kernel_ridge_error(**{"f": TANH, "c": 1.0, "gamma": 0.1, **kw}),
                           {"c": "ratio", "gamma": "ridge", "d": "diagonal"}),
    "linear_error": (lambda **kw: symrmt.linear_error(**{"c": 1.0, "gamma": 0.1, **kw}),
                     {"c": "ratio", "gamma": "ridge"}),
    "solve_linear": (lambda **kw: symrmt.solve_linear(**{"c": 1.0, "gamma": 0.1, **kw}),
                     {"c": "ratio", "gamma": "ridge"}),
    "spectral_density": (lambda **kw: symrmt.spectral_density(**{"f": TANH, "c": 1.0, "x": [0.5], **kw}),
                         {"c": "scalar ratio", "d": "scalar diagonal", "eta": "scalar distance", "x": "points"}),
    "ridgeless_error": (lambda **kw: ridgeless_error(**{"f": TANH, "c": 0.5, **kw}),
                        {"c": "scalar ratio", "d": "diagonal", "tolerance": "scalar positive"}),
    "simulate": (lambda **kw: symrmt.simulate(**{"f": np.tanh, "n": 8, "c": 1.0, "gamma": [0.1], "seeds": 2,
                                                 "progress": False, **kw}),
                 {"c": "scalar ratio", "d": "scalar diagonal", "gamma": "ridge", "n": "count", "seeds": "count",
                  "seed": "seed"}),
    "simulate_spectrum": (lambda **kw: symrmt.simulate_spectrum(**{"f": np.tanh, "n": 8, "c": 1.0,
                                                                   "progress": False, **kw}),
                          {"c": "scalar ratio", "d": "scalar diagonal", "n": "count", "seeds": "count"}),
    "Geometry": (lambda **kw: symrmt.Geometry(**kw),
                 {"mu_norm": "norm", "wk_norm": "norm", "wq_norm": "norm", "cos_mu_wk": "cosine"}),
    "latex": (lambda **kw: symrmt.latex(**{"f": None, **kw}), {"digits": "count", "rank": "count"}),
}

#: Bad for every kind.
ALWAYS_BAD = {
    "text number": "1", "text": "one", "boolean": True, "None": None, "complex": 1 + 1j, "empty list": [],
    "empty array": np.array([]), "nan": math.nan, "inf": math.inf, "dict": {"a": 1}, "ragged": [[1.0], [1.0, 2.0]],
    "bytes": b"1", "huge": 1e300,
}
#: Bad for some kinds only (a float is a fine ratio but not a count; -1 is a fine diagonal).
BAD_FOR = {
    "negative": (-1.0, {"ratio", "scalar ratio", "ridge", "scalar distance", "scalar positive", "norm", "count",
                        "seed"}),
    "zero": (0.0, {"ratio", "scalar ratio", "ridge", "scalar positive", "count"}),
    "float count": (2.0, {"count", "seed"}),
    "huge int": (10**400, {"ratio", "scalar ratio", "ridge", "diagonal", "scalar diagonal", "scalar distance",
                           "scalar positive", "norm", "cosine", "count", "seed"}),  # a seed is at most 2**63 - 1
    "array for a number": ([1.0, 2.0], {"scalar ratio", "scalar diagonal", "scalar distance", "scalar positive",
                                        "norm", "cosine", "count", "seed"}),
    "matrix of points": ([[0.0, 1.0], [1.0, 2.0]], {"points"}),
    "cosine above 1": (1.5, {"cosine"}),
}

#: Values that mean something for one argument: latex(digits=None) is the default (6), not given.
MEANINGFUL = {("latex", "digits", "None")}

CASES = [(function, argument, name, value)
         for function, (_, arguments) in FUNCTIONS.items()
         for argument, kind in arguments.items()
         for name, value in [*ALWAYS_BAD.items(),
                             *((n, v) for n, (v, kinds) in BAD_FOR.items() if kind in kinds)]
         if (function, argument, name) not in MEANINGFUL]


@pytest.mark.parametrize("function, argument, name, value", CASES,
                         ids=[f"{f}-{a}-{n}" for f, a, n, _ in CASES])
def test_the_same_bad_value_is_refused_alike_everywhere(function, argument, name, value):
    call, _ = FUNCTIONS[function]
    with pytest.raises(ParameterError) as info:
        call(**{argument: value})
    message = str(info.value)
    assert argument in message and "\n" not in message, message
    assert "concatenate" not in message and "Traceback" not in message


def test_the_messages_of_one_kind_agree_across_functions():
    """c = '1' reads the same from the theory, the spectra and the simulator (one validator)."""
    messages = set()
    for function in ("attention_error", "linear_error", "spectral_density", "simulate", "ridgeless_error"):
        with pytest.raises(ParameterError) as info:
            FUNCTIONS[function][0](c="1")
        messages.add(str(info.value).split(".")[0])
    assert messages == {"c = '1': must be a real number or an array of real numbers"}, messages


def test_empty_parameter_arrays_are_refused_before_numpy_sees_them():
    for kwargs in (dict(c=np.array([])), dict(gamma=[]), dict(d=np.zeros((0, 3)))):
        with pytest.raises(ParameterError, match="non-empty"):
            symrmt.attention_error(TANH, **{"c": 1.0, "gamma": 0.1, **kwargs})
    with pytest.raises(ParameterError, match="x = .*non-empty"):
        symrmt.spectral_density(TANH, 1.0, [])
    with pytest.raises(ParameterError, match="empty"):
        symrmt.attention_error(TANH, 1.0, 0.1, gram=np.zeros((0, 3, 3)))


def test_the_range_of_each_kind_is_the_same_in_the_theory_and_the_simulator():
    from symrmt.validate import C_RANGE, MAX_DIAGONAL, MAX_GAMMA

    edges = {"c": (C_RANGE[1], C_RANGE[1] * 1.01), "gamma": (MAX_GAMMA, MAX_GAMMA * 1.01),
             "d": (MAX_DIAGONAL, MAX_DIAGONAL * 1.01)}
    for argument, (inside, outside) in edges.items():
        for function in ("attention_error", "simulate"):
            call = FUNCTIONS[function][0]
            with pytest.raises(ParameterError, match=f"{argument} .*must be in"):
                call(**{argument: outside if function == "attention_error" or argument != "gamma" else [outside]})
        value = symrmt.attention_error(TANH, **{"c": 1.0, "gamma": 0.1, argument: inside})
        assert 0 <= float(value) <= 1


# A Hypothesis property: any object, in any argument, is either a value of its kind or refused by name.
OBJECTS = st.one_of(
    st.none(), st.booleans(), st.text(max_size=5), st.binary(max_size=3), st.complex_numbers(),
    st.floats(allow_nan=True, allow_infinity=True), st.integers(min_value=-10**30, max_value=10**30),
    st.lists(st.floats(allow_nan=True), max_size=3), st.lists(st.text(max_size=2), min_size=1, max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2), st.just([]), st.just(np.array([])),
    st.lists(st.lists(st.integers(0, 3), max_size=3), min_size=1, max_size=3),
)
ARGUMENTS = [(function, argument) for function, (_, arguments) in FUNCTIONS.items() for argument in arguments
             if function not in ("ridgeless_error", "simulate_spectrum")]      # the slowest when the value is valid


def _large_number(value) -> bool:
    """Whether ``value`` is a real number above 64 (the sizes the fuzz test does not simulate)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) and value > 64


@settings(max_examples=60)
@given(target=st.sampled_from(ARGUMENTS), value=OBJECTS)
def test_any_object_is_a_value_of_its_kind_or_refused_by_name(target, value):
    function, argument = target
    # A valid but large count is a real simulation (n = 29215 passes the memory check of a 24 GiB machine and
    # runs for hours): its acceptance is what the table of bad values above checks at small sizes.
    assume(not (function == "simulate" and argument in ("n", "seeds") and _large_number(value)))
    call, _ = FUNCTIONS[function]
    try:
        call(**{argument: value})
    except SymrmtInputError as exc:
        message = str(exc)
        assert argument in message and "\n" not in message, message
    except symrmt.ConvergenceError as exc:                # a valid value the solver cannot solve: named
        assert exc.failures or "did not" in str(exc)
