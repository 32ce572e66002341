r"""Fuzzing f with parameters: names, values, vanishing f, shapes and types, in Python and on the command line.

Each class is caught by a property (Hypothesis) and by a table of named cases. The reference
for :math:`f = \operatorname{erf}(s x)` is independent of the package:
:math:`a_1 = 2s/\sqrt{\pi(1 + 2s^2)}`, :math:`\nu = \tfrac2\pi\arcsin\tfrac{2s^2}{1 + 2s^2}` in mpmath.
What may happen is: the right numbers, or a :class:`~symrmt.errors.SymrmtInputError` (exit 2 on the
command line, one line) that names the parameter or the point; never another exception, a NaN,
numbers for an f that is constant at the point, or exit 1.
"""
from __future__ import annotations

import json
import keyword
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symrmt
from symrmt.cli import main
from symrmt.errors import NonlinearityError, ParameterError, SymrmtInputError
from symrmt.nonlinearity import FUNCTIONS, hermite
from symrmt.nonlinearity.gauss_hermite import RTOL


def erf_reference(s: float) -> tuple[float, float]:
    """``(a_1, nu)`` of erf(s x), in mpmath (50 digits, no overflow)."""
    with mpmath.workdps(50):
        s2 = mpmath.mpf(s) ** 2
        a1 = 2 * mpmath.mpf(s) / mpmath.sqrt(mpmath.pi * (1 + 2 * s2))
        nu = 2 / mpmath.pi * mpmath.asin(2 * s2 / (1 + 2 * s2))
        return float(a1), float(nu)


# ------------------------------------------------------------------------------------------------ names

NAMES = st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,40}", fullmatch=True),
                  st.sampled_from([*FUNCTIONS, "x", "pi", "e", "E", *keyword.kwlist, "s" * 33, "__import__"]))


@settings(max_examples=12)                       # each new name costs a 30-digit quadrature at two probe points
@given(name=NAMES)
def test_any_name_is_a_parameter_or_refused(name):
    """A name in erf(NAME*x) is a parameter (and evaluates like the number) or is refused with an input error."""
    try:
        h = hermite(f"erf({name}*x)")
    except SymrmtInputError:
        return
    if not h.parameters:                          # x itself, or a constant such as pi or e
        assert name in ("x", "pi", "e", "E")
        return
    assert [s.name for s in h.parameters] == [name] and name.isidentifier() and not keyword.iskeyword(name)
    a1, nu = erf_reference(0.75)
    at = h.at(**{name: 0.75})
    assert math.isclose(at.a1, a1, rel_tol=1e-14) and math.isclose(at.nu, nu, rel_tol=1e-14)


# ----------------------------------------------------------------------------------------------- values

VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**30, 10**30),
                   st.sampled_from([0.0, -0.0, 5e-324, 1e-300, 1e-11, 1e11, 1e200, 1.7e308]))


@given(value=VALUES)
def test_any_value_gives_the_numbers_or_is_refused_naming_the_parameter(value):
    h = hermite("erf(s*x)")
    for evaluate in (lambda: h.numeric(s=[value]), lambda: h.at(s=value)):
        try:
            out = evaluate()
        except SymrmtInputError as exc:
            assert "s" in str(exc) and str(exc).strip(), exc
            continue
        compiled = isinstance(out, dict)
        a1, nu = (out["a1"][0], out["nu"][0]) if compiled else (out.a1, out.nu)
        ref_a1, ref_nu = erf_reference(float(value))
        assert math.isfinite(a1) and math.isfinite(nu) and nu >= 1e-20     # a usable f, never f = 0
        # numeric() evaluates the closed form in float64: asin(r), r = 2s^2/(1 + 2s^2), has the condition
        # dasin/dr = 1/sqrt(1 - r^2) ~ s, so rounding r costs 1e-16 s (1e-9 at s = 5e7): 10x that is allowed.
        # at() evaluates the closed form exactly, then rounds once.
        rtol = 1e-12 + 1e-15 * abs(float(value)) if compiled else 1e-14
        assert math.isclose(a1, ref_a1, rel_tol=rtol) and math.isclose(nu, ref_nu, rel_tol=rtol), value


#: (formula, value of the parameter where f is identically 0 or constant)
VANISHING = {
    "erf(s*x) at 0": ("erf(s*x)", 0.0),           # a closed form that is 0 there: once returned zeros
    "tanh(s*x) at 0": ("tanh(s*x)", 0.0),         # numeric data: refused per point
    "sin(s*x) at 0": ("sin(s*x)", 0.0),
    "(s - 1)*x**3 at 1": ("(s - 1)*x**3", 1.0),   # a polynomial in s and x
    "s**2*x at 0": ("s**2*x", 0.0),
    "tanh((s - 0.7)*x) at 0.7": ("tanh((s - 0.7)*x)", 0.7),   # zero at a value the package probes
    "exp(s*x) at 0": ("exp(s*x) - exp(s**2/2)", 0.0),          # constant 1 - 1 = 0
}


@pytest.mark.parametrize("name", VANISHING)
def test_an_f_that_vanishes_is_refused_at_that_value_everywhere(name, capsys):
    formula, value = VANISHING[name]
    h = hermite(formula)
    point = f"s = {value:g}"
    with pytest.raises(NonlinearityError, match=point):
        h.at(s=value)
    with pytest.raises(NonlinearityError, match=point):
        h.numeric(s=[1.5, value])
    with pytest.raises(NonlinearityError, match=point):
        symrmt.attention_error(formula, c=1.0, gamma=0.1, params={"s": [1.5, value]})
    for argv in (["theory", "--c", "1", "--gamma", "0.1", "--param", f"s=1.5,{value}"],
                 ["hermite", "--param", f"s={value}"], ["latex", "--param", f"s={value}"]):
        assert main([argv[0], "--f", formula, *argv[1:]]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and point in err, err
    h.numeric(s=[1.5, 2.0])                      # other values are fine


# ----------------------------------------------------------------------------------------------- shapes

SHAPES = st.lists(st.integers(1, 3), max_size=2).map(tuple)


@given(c_shape=SHAPES, gamma_shape=SHAPES, s_shape=SHAPES)
def test_shapes_broadcast_or_the_error_names_the_parameter(c_shape, gamma_shape, s_shape):
    c, gamma = np.full(c_shape, 1.0), np.full(gamma_shape, 0.1)
    s = np.linspace(0.5, 2.0, math.prod(s_shape)).reshape(s_shape)
    try:
        expected = np.broadcast_shapes(c_shape, gamma_shape, s_shape)
    except ValueError:
        with pytest.raises(ParameterError, match=r"\bs \(") as caught:
            symrmt.attention_error("erf(s*x)", c=c, gamma=gamma, params={"s": s})
        assert "a_1" not in str(caught.value) and "c (" in str(caught.value)
        return
    out = symrmt.attention_error("erf(s*x)", c=c, gamma=gamma, params={"s": s})
    assert out.shape == expected and np.all(np.isfinite(out))


# ------------------------------------------------------------------------------------------------ types

BAD_PARAMS = {
    "string value": ({"s": "one"}, "s"), "None value": ({"s": None}, "s"), "complex value": ({"s": 1j}, "s"),
    "ragged value": ({"s": [[1.0], [1.0, 2.0]]}, "s"), "dict value": ({"s": {"a": 1}}, "s"),
    "nan value": ({"s": float("nan")}, "s"), "inf in array": ({"s": [1.0, float("inf")]}, "s"),
    "object array": ({"s": np.array([1.0, "a"], dtype=object)}, "s"), "list of str": ({"s": ["1"]}, "s"),
    "missing": ({}, "s"), "unknown": ({"s": 1.0, "t": 2.0}, "t"), "integer key": ({1: 2.0}, "parameter"),
    "not a dict": ([("s", 1.0)], "params"), "a string": ("s=1", "params"),
    "empty array": ({"s": []}, "s = []: must be non-empty"), "boolean": ({"s": True}, "s = True"),
}


@pytest.mark.parametrize("name", BAD_PARAMS)
def test_bad_params_are_refused_naming_them(name):
    params, needle = BAD_PARAMS[name]
    for call in (lambda: symrmt.attention_error("erf(s*x)", c=1.0, gamma=0.1, params=params),
                 lambda: symrmt.spectral_density("erf(s*x)", c=1.0, x=[1.0], params=params),
                 lambda: hermite("erf(s*x)", params=params)):
        with pytest.raises(SymrmtInputError) as caught:
            call()
        assert needle in str(caught.value), (name, str(caught.value))


@given(value=st.one_of(st.text(max_size=5), st.none(), st.complex_numbers(), st.lists(st.text(max_size=2)),
                       st.dictionaries(st.text(max_size=2), st.integers()), st.binary(max_size=4)))
def test_values_of_any_type_are_numbers_or_refused(value):
    try:
        hermite("erf(s*x)").numeric(s=value)
    except SymrmtInputError as exc:
        assert "s" in str(exc)


# ------------------------------------------------------------------------------------ the command line

POINT = {"theory": ["--c", "1", "--gamma", "0.1,1"], "spectrum": ["--c", "0.5", "--x", "0.5,1"], "hermite": [],
         "latex": ["--digits", "8"],
         "simulate": ["--c", "1", "--gamma", "0.1", "--n", "24", "--seeds", "2", "--quiet"],
         "compare": ["--c", "1", "--gamma", "0.1", "--n", "24", "--seeds", "2", "--quiet"],
         # one seed count per size: a run that repeats exactly (an integer lets the measured cost decide)
         "converge": ["--c", "1", "--gamma", "0.1", "--ns", "16,24,32", "--seeds", "6,4,3", "--quiet"]}


def json_of(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command", POINT)
def test_a_parametric_f_goes_through_every_command(command, capsys):
    """``--f 'tanh(s*x)' --param s=2`` gives what ``--f 'tanh(2*x)'`` gives, in every command.

    The data without a closed form are float64 quadrature at a parameter value (kept within gauss_hermite.RTOL,
    1e-11, of the scale) and the 30-digit quadrature without parameters: numbers agree to 1e-10 relative (the
    curves are smooth in a_1 and nu), a closed form is one in both (its source may be the table in s)."""
    with_param = json_of(capsys, [command, "--f", "tanh(s*x)", "--param", "s=2", *POINT[command]])
    fixed = json_of(capsys, [command, "--f", "tanh(2*x)", *POINT[command]])
    assert with_param.pop("params") == {"s": 2.0}
    with_param.pop("f", None), fixed.pop("f", None)
    _assert_same(_without_timings(with_param), _without_timings(fixed))


def _assert_same(got, expected, where="output"):
    """``got == expected``, numbers to 1e-10 relative and sources as closed form or numeric (see above)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and set(got) == set(expected), where
        for key in expected:
            if key == "source":
                assert {k: v == "numeric" for k, v in got[key].items()} == \
                    {k: v == "numeric" for k, v in expected[key].items()}, where
            else:
                _assert_same(got[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), where
        for k, (g, e) in enumerate(zip(got, expected)):
            _assert_same(g, e, f"{where}[{k}]")
    elif isinstance(expected, float) and not isinstance(got, bool):
        assert got == pytest.approx(expected, rel=1e-10, abs=1e-300), where
    else:
        assert got == expected, where


def _without_timings(value):
    """The output without what the clock measured (converge's seconds, and the times its decisions estimate in words)."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in ("seconds", "seed_seconds", "reason")}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_theory_grids_have_headers_values_and_e_lin(capsys):
    grid = json_of(capsys, ["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1,1", "--param", "s=1,2"])
    point = json_of(capsys, ["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1,1", "--param", "s=2"])
    assert grid["params"] == {"s": [1.0, 2.0]} and grid["linear"] == point["linear"]
    # a grid's data are float64 quadrature kept within gauss_hermite.RTOL (1e-11) of the scale; one point's are .at()'s
    assert np.allclose(grid["attention"][1], point["attention"], rtol=1e-10)
    assert abs(grid["a1"][1] - point["a1"]) <= RTOL * max(abs(point["a1"]), point["nu"] ** 0.5)
    assert main(["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1,1", "--param", "s=1,2"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1].split() == ["s", "a_1", "nu", "gamma", "E_attn", "E_lin"] and len(table) == 2 + 4
    assert table[-1].split()[0] == "2" and float(table[-1].split()[-1]) == pytest.approx(point["linear"][1], 1e-5)


CLI_REFUSALS = {
    "no value": (["--param", "s"], "--param"), "no name": (["--param", "=1"], "--param"),
    "empty value": (["--param", "s="], "--param s="), "text value": (["--param", "s=one"], "--param s="),
    "nan": (["--param", "s=nan"], "--param s="), "overflow": (["--param", "s=1e400"], "--param s="),
    "bad grid": (["--param", "s=1:2"], "--param s="), "huge grid": (["--param", "s=1:2:1e9"], "--param s="),
    "x is not a parameter": (["--param", "s=1", "--param", "x=1"], "--param x"),
    "pi is not a parameter": (["--param", "s=1", "--param", "pi=1"], "--param pi"),
    "repeated": (["--param", "s=1", "--param", "s=2"], "--param s is given twice"),
    "missing": ([], "--param s=VALUE"), "unknown": (["--param", "t=1"], "s"),
    "vanishing": (["--param", "s=0"], "s = 0"),
}


@pytest.mark.parametrize("name", CLI_REFUSALS)
@pytest.mark.parametrize("command", ["theory", "simulate", "spectrum", "hermite", "latex"])
def test_bad_params_on_the_command_line_are_one_line_exit_2(name, command, capsys):
    extra, needle = CLI_REFUSALS[name]
    if command in ("hermite", "latex") and name == "missing":
        return                                           # these show f in its parameters
    status = main([command, "--f", "erf(s*x)", *extra, *POINT[command]])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and needle in err, (status, err)


@pytest.mark.parametrize("command", ["simulate", "compare", "latex", "converge"])
def test_grids_are_refused_where_one_value_is_taken(command, capsys):
    assert main([command, "--f", "erf(s*x)", "--param", "s=1:2:3", *POINT[command]]) == 2
    assert "one value per parameter" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["theory", "simulate", "compare", "latex", "converge"])
def test_a_repeated_param_is_answered_in_the_command_s_own_syntax(command, capsys):
    # A grid suggested where one value is taken would send the user into the next refusal.
    assert main([command, "--f", "erf(s*x)", "--param", "s=1", "--param", "s=2", *POINT[command]]) == 2
    err = capsys.readouterr().err
    assert ("LO:HI:NUM" in err or "0.5:2:20" in err) == (command == "theory"), err


@given(text=st.text(max_size=30))
def test_any_param_text_is_exit_0_or_2(text):
    status = main(["hermite", "--f", "erf(s*x)", f"--param={text}", "--json"])
    assert status in (0, 2)


# --------------------------------------------------------------------------------------- the simulator

def test_the_simulator_takes_parameters_and_refuses_an_uncentered_f():
    kwargs = dict(n=24, c=1.0, gamma=[0.1, 1.0], seeds=2, progress=False)
    with_params = symrmt.simulate("tanh(s*x)", params={"s": 2.0}, **kwargs)
    assert np.array_equal(with_params.attention_per_seed, symrmt.simulate("tanh(2*x)", **kwargs).attention_per_seed)
    # the closed form of a_0 = 1/sqrt(2 pi) (a 1 s search may miss it under load, and then f differs in the last bit)
    centered = symrmt.simulate(hermite("relu(x)", center=True, timeout=60.0), **kwargs)
    assert np.array_equal(centered.attention_per_seed,
                          symrmt.simulate("relu(x) - 1/sqrt(2*pi)", **kwargs).attention_per_seed)
    for f in ("relu(x)", "x**2", lambda t: t * t, hermite("cosh(x)")):
        with pytest.raises(NonlinearityError, match="not centered.*center=True"):
            symrmt.simulate(f, **kwargs)
        with pytest.raises(NonlinearityError, match="not centered"):
            symrmt.simulate_spectrum(f, n=24, c=1.0, progress=False)
    for params, needle in (({}, "s"), ({"s": 0.0}, "s = 0"), ({"s": "2"}, "s = '2'"), ({"t": 1.0}, "t")):
        with pytest.raises(SymrmtInputError, match=needle):
            symrmt.simulate("tanh(s*x)", params=params, **kwargs)
    with pytest.raises(ParameterError, match="callable has no symbolic parameters"):
        symrmt.simulate(np.tanh, params={"s": 1.0}, **kwargs)
