"""Tests of symrmt.nonlinearity: safe parsing, Hermite coefficients, zoo, numeric callable.

Reference values are computed here independently of the module: closed forms from
docs/theory.md section 2 evaluated with mpmath, and SciPy's QUADPACK (not mpmath's
tanh-sinh, which the module uses) where no closed form exists.
"""
from __future__ import annotations

import ast
import builtins
import doctest
import importlib
import math
import multiprocessing
import os
import pkgutil
import time

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.integrate import quad

from symrmt import nonlinearity as nl
from symrmt.nonlinearity import budget
from symrmt.errors import SymrmtInputError
from symrmt.nonlinearity import ZOO, X, HermiteCoefficients, hermite, numeric_callable, parse_nonlinearity

RTOL = 1e-12  # the module promises at least 12 correct digits
# SymPy runs under a wall-clock budget; other jobs on this 2-core machine can slow it
# down, so tests that require a closed form give it room (a finished integral returns
# at once, the budget is only a ceiling).
SLOW_OK = 30.0


def gauss_expect(g) -> float:
    """E g(xi), xi ~ N(0,1), by QUADPACK on [-40, 0] and [0, 40] (the tail beyond is < 1e-340)."""
    phi = lambda t: g(t) * math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    return sum(quad(phi, a, b, epsabs=0, epsrel=1e-13, limit=200)[0] for a, b in ((-40, 0), (0, 40)))


def close(a: float, b: float, scale: float = 1.0) -> bool:
    return abs(a - b) <= RTOL * max(abs(b), scale)


# docs/theory.md section 2: (f, a1, nu, a closed form is expected for a1 and nu)
mp = mpmath.mpf
THEORY = {
    "x": ("x", 1.0, 1.0, True),
    "sin": ("sin(x)", float(mpmath.exp(-0.5)), float((1 - mpmath.exp(-2)) / 2), True),
    "erf": ("erf(x)", float(2 / mpmath.sqrt(3 * mpmath.pi)), float(2 / mpmath.pi * mpmath.asin(mp(2) / 3)), True),
    "relu": ("Max(x, 0) - 1/sqrt(2*pi)", 0.5, float(mp(1) / 2 - 1 / (2 * mpmath.pi)), True),
    "hermite3": ("x**3 - 3*x", 0.0, 6.0, True),
    "cos": ("cos(x) - exp(-1/2)", 0.0, float((1 + mpmath.exp(-2)) / 2 - mpmath.exp(-1)), None),
    # tanh: no closed form; QUADPACK of a different integrand (Stein: E[xi tanh xi] = E[sech^2 xi])
    "tanh": (
        "tanh(x)",
        gauss_expect(lambda t: 1 / math.cosh(t) ** 2),
        gauss_expect(lambda t: math.tanh(t) ** 2),
        False,
    ),
}


# ------------------------------------------------------------------ Hermite data


@pytest.mark.parametrize("name", list(THEORY))
def test_theory_values_to_12_digits(name):
    f, a1, nu, has_closed_form = THEORY[name]
    h = hermite(f, timeout=SLOW_OK)
    assert close(h.a1, a1) and close(h.nu, nu), (h.a1, a1, h.nu, nu)
    assert abs(h.a0) <= 1e-12 and h.centered_by == 0.0
    assert math.isclose(h.b2, nu - a1**2, rel_tol=1e-10, abs_tol=1e-12)
    if has_closed_form is None:  # docs/theory.md gives a closed form for a1 only
        assert h.exact["a1"] is not None
    elif has_closed_form:
        assert h.exact["a1"] is not None and h.exact["nu"] is not None, h.source
        assert h.source["a1"] in ("exact", "table") and h.source["nu"] in ("exact", "table")
    else:
        assert h.exact["a1"] is None and h.source["a1"] == "numeric"


def test_theory_closed_forms_are_the_documented_ones():
    expected = {
        "sin(x)": (sp.exp(-sp.S.Half), (1 - sp.exp(-2)) / 2),
        "erf(x)": (2 / sp.sqrt(3 * sp.pi), 2 / sp.pi * sp.asin(sp.Rational(2, 3))),
        "Max(x, 0) - 1/sqrt(2*pi)": (sp.S.Half, sp.S.Half - 1 / (2 * sp.pi)),
        "x**3 - 3*x": (sp.S.Zero, sp.Integer(6)),
        "x": (sp.S.One, sp.S.One),
    }
    for f, (a1, nu) in expected.items():
        h = hermite(f, timeout=SLOW_OK)
        assert sp.simplify(h.exact["a1"] - a1) == 0 and sp.simplify(h.exact["nu"] - nu) == 0, f
    assert hermite("cos(x) - exp(-1/2)", timeout=SLOW_OK).exact["a1"] == 0


def test_tanh_matches_theory_rounding_and_stein_identity():
    h = hermite("tanh(x)")
    assert round(h.a1, 7) == 0.6057055 and round(h.nu, 7) == 0.3942945
    assert abs(h.a1 + h.nu - 1) < 1e-14  # E[xi tanh] = E[sech^2] = 1 - E[tanh^2]
    assert h.exact["a0"] == 0 and h.exact["a2"] == 0  # odd: from parity, not from a table


def test_erf_k_table_family():
    for k in (sp.Rational(1, 2), 2, 3):
        h = hermite(sp.erf(k * X))
        kf = float(k)
        a1 = 2 * kf / math.sqrt(math.pi * (1 + 2 * kf**2))
        nu = 2 / math.pi * math.asin(2 * kf**2 / (1 + 2 * kf**2))
        assert h.source["a1"] == "table" and close(h.a1, a1) and close(h.nu, nu)
        assert close(h.a1, gauss_expect(lambda t: t * math.erf(kf * t)))
        assert close(h.nu, gauss_expect(lambda t: math.erf(kf * t) ** 2))


@pytest.mark.parametrize("f", ["sin(x)", "erf(x)", "relu(x) - 1/sqrt(2*pi)", "Abs(x) - sqrt(2/pi)", "x**3 - 3*x"])
def test_exact_and_numeric_paths_agree(f):
    exact, numeric = hermite(f, timeout=SLOW_OK), hermite(f, method="numeric")
    assert all(v is None for v in numeric.exact.values()) and set(numeric.source.values()) == {"numeric"}
    for key in ("a0", "a1", "a2", "nu"):
        assert close(getattr(exact, key), getattr(numeric, key), scale=math.sqrt(exact.nu)), key
        if exact.exact[key] is not None:  # the closed form itself, at 30 digits, against the 30-digit quadrature
            assert abs(sp.N(exact.exact[key], 30) - sp.Float(getattr(numeric, key), 30)) < 1e-14


@st.composite
def hermite_polynomials(draw):
    coeffs = draw(st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=4), min_size=4, max_size=4))
    if all(c == 0 for c in coeffs):
        coeffs[0] = 1
    return [sp.Rational(c.numerator, c.denominator) for c in coeffs]


@given(hermite_polynomials())
def test_hermite_form_polynomials_exactly(c):
    """f = sum_k c_k He_k (k = 1..4) has a_k = c_k sqrt(k!) and nu = sum_k c_k^2 k!, exactly."""
    f = sum(ck * sp.hermite_prob(k, X) for k, ck in enumerate(c, start=1))
    h = hermite(f)
    for k, ck in enumerate(c, start=1):
        value, exact = h.coefficient(k)
        assert exact is not None and sp.simplify(exact - ck * sp.sqrt(sp.factorial(k))) == 0
        assert math.isclose(value, float(ck * sp.sqrt(sp.factorial(k))), abs_tol=1e-13)
    assert h.exact["nu"] == sum(ck**2 * sp.factorial(k) for k, ck in enumerate(c, start=1))
    assert h.exact["a0"] == 0 and h.source["nu"] == "exact"


def test_coefficient_beyond_two():
    h = hermite("sin(x)")
    value, exact = h.coefficient(3)  # E[sin(xi) He_3(xi)]/sqrt(6) = -e^{-1/2}/sqrt(6)
    assert close(value, -math.exp(-0.5) / math.sqrt(6))
    assert exact is None or sp.simplify(exact + sp.exp(-sp.S.Half) / sp.sqrt(6)) == 0
    tanh = hermite("tanh(x)")
    a3 = gauss_expect(lambda t: math.tanh(t) * (t**3 - 3 * t)) / math.sqrt(6)
    assert close(tanh.coefficient(3)[0], a3, scale=math.sqrt(tanh.nu))
    assert tanh.coefficient(1) == (tanh.a1, None)
    for bad in (-1, 31, 1.5, True):
        with pytest.raises(SymrmtInputError, match="integer"):
            tanh.coefficient(bad)


def test_center_subtracts_a0_exactly():
    h = hermite("relu(x)", center=True, timeout=SLOW_OK)
    assert sp.simplify(h.f - (sp.Max(X, 0) - 1 / sp.sqrt(2 * sp.pi))) == 0
    assert math.isclose(h.centered_by, 1 / math.sqrt(2 * math.pi), rel_tol=1e-15)
    assert h.exact["a0"] == 0 and close(h.nu, THEORY["relu"][2])
    sig = hermite("sigmoid(x)", center=True)  # a0 = 1/2 from f(x) + f(-x) = 1
    assert sig.centered_by == 0.5 and sig.exact["a0"] == 0
    assert close(sig.a1, gauss_expect(lambda t: t / (1 + math.exp(-t))))


def test_uncentered_f_is_refused_with_the_centering_hint():
    with pytest.raises(SymrmtInputError, match=r"center=True.*--center"):
        hermite("relu(x)")
    with pytest.raises(SymrmtInputError, match="center"):
        hermite("x**2")


@pytest.mark.parametrize("f", ["exp(x**2)", "exp(x**2/2)", "exp(x**2/4)", "exp(exp(x))"])
def test_not_square_integrable_is_refused(f):
    with pytest.raises(SymrmtInputError, match="square-integrable"):
        hermite(f, center=True)


@pytest.mark.parametrize("f", ["tan(x)", "1/x"])
def test_poles_are_refused(f):
    with pytest.raises(SymrmtInputError, match="did not converge|pole"):
        hermite(f, center=True)


def test_square_integrable_but_fast_growing_is_accepted():
    h = hermite("exp(x**2/5)", center=True)  # E f^2 = 1/sqrt(1 - 4/5) = sqrt(5)
    assert close(h.nu + h.centered_by**2, math.sqrt(5))


def test_zero_almost_everywhere_is_refused():
    with pytest.raises(SymrmtInputError, match="zero almost everywhere|constant"):
        hermite("sin(x)**2 + cos(x)**2 - 1")
    with pytest.raises(SymrmtInputError, match="constant almost everywhere"):
        hermite("sign(x)**2", center=True)


def test_results_are_cached_and_callers_cannot_corrupt_the_cache():
    t0 = time.perf_counter()
    first = hermite("atan(x)", timeout=0.5)  # SymPy finds no a1 / nu in 0.5 s: numeric
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    second = hermite("atan(x)", timeout=0.5)
    warm = time.perf_counter() - t0
    assert warm < 0.05 < cold and first == second
    first.exact["a1"] = "garbage"
    assert hermite("atan(x)", timeout=0.5).exact["a1"] is None
    assert first.source["nu"] == "numeric" and cold < 6  # two 0.5 s budgets + quadrature, with slack for load
    assert close(first.a1, gauss_expect(lambda t: t * math.atan(t)))
    assert not multiprocessing.active_children()  # SymPy workers were killed and reaped


def test_latex_and_b2():
    h = hermite("erf(x)")
    tex = h.latex()
    assert set(tex) == {"a0", "a1", "a2", "nu"} and ("asin" in tex["nu"] or "arcsin" in tex["nu"])
    assert hermite("tanh(x)").latex()["a1"] is None
    assert hermite("x").b2 == 0.0  # nu = a1^2 exactly: round-off is clipped, never negative
    bad = HermiteCoefficients(X, 0.0, 1.0, 0.0, 0.5, exact={}, source={})
    with pytest.raises(RuntimeError, match="b\\^2"):
        bad.b2


def test_options_are_validated():
    with pytest.raises(SymrmtInputError, match="method"):
        hermite("tanh(x)", method="symbolic")
    with pytest.raises(SymrmtInputError, match="timeout"):
        hermite("tanh(x)", timeout=0)


def test_zoo_is_centered_and_parses():
    for name, f in ZOO.items():
        h = hermite(f, method="numeric")
        assert abs(h.a0) <= 1e-12 and h.nu > 0, name
    assert ZOO["hermite3"] == "x**3 - 3*x" and "relu" in ZOO and "gelu" in ZOO


# ---------------------------------------------------------------------- parsing


INJECTIONS = [
    "__import__('os').system('echo hi')",
    "x.__class__",
    "lambda: 1",
    "[x for x in ()]",
    "'a'",
    "os",
    "y",
    "exec('1')",
    "eval('x')",
    "x if 1 else 2",
    "().__class__.__bases__[0].__subclasses__()",
    "getattr(x, 'free_symbols')",
    "x[0]",
    "x < 1",
    "x and 1",
    "True * x",
    "1j * x",
    "{x}",
    "(x, x)",
    "f'{x}'",
    "x @ x",
    "x // 2",
    "x % 2",
    "exp(x=1)",
    "exp(*[x])",
    "pi(x)",
    "exp(x)(1)",
    "Symbol('x')",
    "sympify('x')",
    "x;1",
    "import os",
    "x := 1",
    "None",
    "...",
]


@pytest.mark.parametrize("src", INJECTIONS)
def test_injection_strings_are_refused_with_the_vocabulary(src):
    with pytest.raises(SymrmtInputError) as info:
        parse_nonlinearity(src)
    message = str(info.value)
    assert "allowed" in message or "not allowed" in message, message


def test_refusal_names_the_offending_token():
    with pytest.raises(SymrmtInputError, match="'os'"):
        parse_nonlinearity("os")
    with pytest.raises(SymrmtInputError, match="__class__"):
        parse_nonlinearity("x.__class__")
    with pytest.raises(SymrmtInputError, match="__import__"):
        parse_nonlinearity("__import__('os')")
    with pytest.raises(SymrmtInputError, match=r"\*\*"):
        parse_nonlinearity("x^3")  # XOR in Python syntax: refused with a hint, not reinterpreted


@pytest.mark.parametrize(
    "src, why",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("x+" * 300 + "x", "characters"),
        ("-" * 200 + "x", "nested"),
        ("(" * 201 + "x" + ")" * 201, "nested parentheses"),
        ("e**" * 110 + "x", "nested more than 100"),
        ("3", "does not depend on x"),
        ("x - x", "does not depend on x"),
        ("log(x)", "log\\(Abs\\(x\\)\\)"),
        ("sqrt(x)", "not real"),
        ("x**(1/3)", "not real"),
        ("x**1000", "exponent"),
        ("9**9**9", "exponent"),
        ("(((2**64)**64)**64)**64", "too large"),
        ("exp(exp(exp(exp(x))))", "infinite or undefined"),
        ("exp(exp(exp(64)))*x", "astronomically large"),
        ("Max(x, exp(exp(exp(64))))", "astronomically large"),
        ("x**(0**-1)", "infinite or undefined"),
        ("Max(x, log(-1))", "not real"),
        ("x + 1e101", "larger than 1e100"),
        ("1e999 * x", "non-finite"),
        ("x/0", "divides by zero"),
        ("tanh(x, 2)", "argument"),
    ],
)
def test_bad_inputs_are_refused(src, why):
    with pytest.raises(SymrmtInputError, match=why):
        parse_nonlinearity(src)


def test_parsing_never_runs_code(tmp_path, monkeypatch):
    """The user's text never reaches eval/exec (SymPy's sympify/parse_expr end there), and
    a payload with a side effect has none."""
    canary = "0.123456789"
    real_eval, real_exec, real_compile = builtins.eval, builtins.exec, builtins.compile

    def guarded(real):
        def wrapper(code, *args, **kwargs):
            assert not (isinstance(code, str) and canary in code), "user text reached eval/exec"
            return real(code, *args, **kwargs)

        return wrapper

    def guarded_compile(source, filename, mode, flags=0, *args, **kwargs):
        if isinstance(source, str) and canary in source:
            assert flags & ast.PyCF_ONLY_AST, "user text compiled to bytecode"
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "eval", guarded(real_eval))
    monkeypatch.setattr(builtins, "exec", guarded(real_exec))
    monkeypatch.setattr(builtins, "compile", guarded_compile)
    expr = parse_nonlinearity(f"gelu(x) + {canary}*sin(x)**2 - Max(x, 1, -1) + leaky_relu(x, 0.2)")
    assert X in expr.free_symbols
    target = tmp_path / "pwned"
    for payload in (
        f"__import__('os').system('touch {target}')",
        f"open('{target}', 'w').write('{canary}')",
        f"exec(\"open('{target}', 'w')\")",
    ):
        with pytest.raises(SymrmtInputError):
            parse_nonlinearity(payload)
    assert not target.exists()


def test_vocabulary_and_decimal_literals():
    assert parse_nonlinearity("relu(x) - 0.5") == sp.Max(X, 0) - sp.S.Half  # exact rational
    assert parse_nonlinearity("2.5e-1*x") == X / 4
    assert parse_nonlinearity("e*x + E - exp(1)") == sp.E * X
    assert parse_nonlinearity("gelu(x)") == X * (1 + sp.erf(X / sp.sqrt(2))) / 2
    assert parse_nonlinearity("sigmoid(x)") == 1 / (1 + sp.exp(-X))
    assert parse_nonlinearity("silu(x)") == parse_nonlinearity("swish(x)") == X / (1 + sp.exp(-X))
    assert parse_nonlinearity("softplus(x)") == sp.log(1 + sp.exp(X))
    assert parse_nonlinearity("arctan(x)") == parse_nonlinearity("atan(x)") == sp.atan(X)
    assert parse_nonlinearity("abs(x) + max(x, 0) + min(x, 0)") == sp.Abs(X) + sp.Max(X, 0) + sp.Min(X, 0)
    for name in nl.FUNCTIONS:
        lo = nl.FUNCTIONS[name][1]
        src = f"{name}({', '.join(['x'] * lo)})" if name not in ("log", "ln", "sqrt") else f"{name}(1 + x**2)"
        assert X in parse_nonlinearity(src).free_symbols, name


def test_sympy_input():
    plain = sp.Symbol("x")
    assert parse_nonlinearity(sp.tanh(plain)) == sp.tanh(X)
    assert parse_nonlinearity(sp.tanh(sp.Symbol("x", positive=True))) == sp.tanh(X)
    with pytest.raises(SymrmtInputError, match="y"):
        parse_nonlinearity(sp.tanh(plain) + sp.Symbol("y"))
    with pytest.raises(SymrmtInputError, match="does not depend"):
        parse_nonlinearity(sp.Integer(2))
    with pytest.raises(SymrmtInputError, match="string or a SymPy"):
        parse_nonlinearity(3.0)
    with pytest.raises(SymrmtInputError, match="SymPy expression"):
        parse_nonlinearity(sp.Eq(plain, 1))
    with pytest.raises(SymrmtInputError, match="not real"):
        parse_nonlinearity(sp.log(plain))
    # a Piecewise from SymPy (outside the string vocabulary) still works
    h = hermite(sp.Piecewise((plain, plain > 0), (0, True)), center=True, method="numeric")
    assert close(h.a1, 0.5) and close(h.nu, THEORY["relu"][2])


# ------------------------------------------------------------- numeric callable


def test_numeric_callable_is_vectorized_float64_and_matches_sympy():
    pts = np.linspace(-3, 3, 13)
    for f in ["tanh(x)", "relu(x) - 1/sqrt(2*pi)", "gelu(x)", "erf(x)", "Heaviside(x) - 1/2", "sign(x)", "elu(x)"]:
        g = numeric_callable(f)
        out = g(pts)
        assert out.dtype == np.float64 and out.shape == pts.shape
        expr = parse_nonlinearity(f)
        ref = np.array([float(expr.subs(X, sp.Float(float(t), 30)).evalf(30)) for t in pts])
        np.testing.assert_allclose(out, ref, rtol=1e-14, atol=1e-15)
        assert g(pts.reshape(13, 1)).shape == (13, 1)
    assert numeric_callable("x")(np.zeros((2, 3), dtype=np.float32)).dtype == np.float64
    assert numeric_callable("x")(1.5).shape == ()
    sig = numeric_callable("sigmoid(x)")(np.array([-1000.0, 0.0, 1000.0]))
    np.testing.assert_array_equal(sig, [0.0, 0.5, 1.0])  # exp overflow is silent and gives the limit
    with pytest.raises(SymrmtInputError):
        numeric_callable("os.system")


@pytest.mark.parametrize("module", [nl, *(importlib.import_module(f"symrmt.nonlinearity.{m.name}")
                                    for m in pkgutil.iter_modules(nl.__path__))], ids=lambda m: m.__name__)
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_every_public_function_has_a_doctest():
    attempted = sum(doctest.testmod(importlib.import_module(f"symrmt.nonlinearity.{m.name}"),
                                    optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).attempted
                    for m in pkgutil.iter_modules(nl.__path__))
    assert attempted >= 6


def test_disk_cache_survives_a_new_process(tmp_path):
    """The first build for a new f is kept on disk: a fresh process reads it back without quadrature."""
    import subprocess
    import sys

    code = ("import time, symrmt.nonlinearity as m; t = time.perf_counter(); h = m.hermite('tanh(3*x)/3 + x/7');"
            " print(h.a1, h.nu, time.perf_counter() - t)")
    env = dict(os.environ, SYMRMT_CACHE_DIR=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.split()[:2] == second.stdout.split()[:2]
    assert list((tmp_path / "hermite").glob("*.json")) and not list(tmp_path.rglob("*.pkl"))
    assert float(second.stdout.split()[2]) < float(first.stdout.split()[2])


def test_bare_function_name_means_function_of_x():
    assert parse_nonlinearity("tanh") == parse_nonlinearity("tanh(x)")


def _sleep_then_send(conn, expr):
    time.sleep(1.0)                      # waiting uses no CPU time
    conn.send(expr)


def _spin_then_send(conn, expr):
    end = time.process_time() + 30.0     # 30 s of CPU: far beyond the budget below
    while time.process_time() < end:
        pass
    conn.send(expr)


@pytest.mark.skipif(not hasattr(budget.signal, "setitimer"), reason="CPU-time budgets need setitimer (Unix)")
def test_sympy_budget_is_cpu_time_not_wall_clock():
    """A child that waits (a busy machine) keeps its budget; a child that computes past its budget is stopped.

    So which closed forms are found does not depend on the load of the machine.
    """
    assert budget._run_limited(_sleep_then_send, sp.Integer(7), 0.3) == 7
    start = time.monotonic()
    assert budget._run_limited(_spin_then_send, sp.Integer(7), 0.3) is None
    assert time.monotonic() - start < 0.3 * budget.WALL_CLOCK_FACTOR + 1.0
    assert not multiprocessing.active_children()
