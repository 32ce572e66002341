r"""Fuzzing ``hermite``: generated formulas either agree with an independent quadrature or are
refused cleanly (a SymrmtInputError), each in bounded time; known injections stay refused.

The reference here shares nothing with symrmt: the formula is turned into SymPy by
``sympy.parse_expr`` (safe for these generated strings only), evaluated by a plain
``sympy.lambdify`` to NumPy/SciPy, and integrated against the Gaussian by SciPy's
QUADPACK, split at the kinks the generator put in (it knows where they are), where
symrmt uses mpmath tanh-sinh and finds the kinks itself.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest
from test_nonlinearity import INJECTIONS as PARSER_INJECTIONS
import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from symrmt.errors import SymrmtInputError
from symrmt.nonlinearity import hermite, parse_nonlinearity

SECONDS = 60.0         # one hermite call, SymPy budget included, on a loaded 2-core machine
AGREE = 1e-8           # QUADPACK in float64 against the module's 30-digit quadrature, relative to sqrt(nu)

COEFFICIENTS = ["-2", "-1.5", "-1", "-0.5", "0.25", "0.5", "1", "2", "3"]
SCALES = ["1e-12", "1e-9", "1e-6", "1e-3", "1", "1e3", "1e6", "1e9", "1e12"]
SMOOTH = ["tanh", "erf", "sin", "cos", "atan", "softsign", "sigmoid", "gelu", "asinh", "exp"]
MONOTONE_ODD = ["tanh", "erf", "atan", "asinh", "sinh"]        # zero exactly where their argument is


@st.composite
def linear(draw):
    """``(a*x + b, {root})``: the argument of every kink, so that the kinks are known."""
    a, b = draw(st.sampled_from(COEFFICIENTS)), draw(st.sampled_from(COEFFICIENTS + ["0"]))
    return f"({a}*x + {b})", {-float(b) / float(a)}


@st.composite
def kinked(draw):
    arg, roots = draw(linear())
    if draw(st.booleans()):                                   # a monotone odd wrapper keeps the root
        arg = f"{draw(st.sampled_from(MONOTONE_ODD))}({arg})"
    power = draw(st.sampled_from(["", "**2", "**3"]))      # repeated roots: sign(x**2), Abs((x - 1)**3)
    template = draw(st.sampled_from(["Abs({})", "sign({})", "Heaviside({})", "relu({})", "Max({}, 0)",
                                     "Min({}, 0)", "leaky_relu({}, 0.2)", "cbrt({})", "elu({})"]))
    return template.format(arg + power), roots


@st.composite
def formulas(draw, depth=0):
    """``(text, kinks)`` for a random f: kinks, repeated roots, nesting, tiny and huge scales."""
    choices = ["linear", "kinked", "smooth"] + (["sum", "product", "power", "nested"] if depth < 2 else [])
    kind = draw(st.sampled_from(choices))
    if kind == "linear":
        return draw(linear())[0], set()
    if kind == "kinked":
        return draw(kinked())
    if kind == "smooth":
        arg = draw(linear())[0]
        name = draw(st.sampled_from(SMOOTH))
        return (f"exp(-{arg}**2)" if name == "exp" else f"{name}({arg})"), set()
    left, kinks_left = draw(formulas(depth + 1))
    if kind == "power":
        return f"({left})**{draw(st.sampled_from(['2', '3']))}", kinks_left
    if kind == "nested":                                     # a smooth function of anything: kinks kept
        return f"{draw(st.sampled_from(['tanh', 'sin', 'atan', 'erf']))}({left})", kinks_left
    right, kinks_right = draw(formulas(depth + 1))
    op = " + " if kind == "sum" else " * "
    return f"({left}){op}({right})", kinks_left | kinks_right


@st.composite
def scaled_formulas(draw):
    text, kinks = draw(formulas())
    return f"{draw(st.sampled_from(SCALES))}*({text})", kinks


def reference(expr: sp.Expr, kinks: set[float]) -> dict[str, float]:
    """a_0, a_1, a_2, nu of ``expr`` by QUADPACK, split at the given kinks (independent of symrmt)."""
    x = sorted(expr.free_symbols, key=str)[0]
    f = sp.lambdify(x, expr, modules=["scipy", "numpy"])
    cuts = sorted({-30.0, -12.0, -4.0, 0.0, 4.0, 12.0, 30.0} | {k for k in kinks if abs(k) < 30})
    phi = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    weights = {"a0": lambda t: 1.0, "a1": lambda t: t, "a2": lambda t: (t * t - 1) / math.sqrt(2)}

    def expect(g):
        return sum(quad(g, lo, hi, epsabs=0, epsrel=1e-12, limit=400)[0] for lo, hi in zip(cuts, cuts[1:]))

    with np.errstate(all="ignore"):
        out = {k: expect(lambda t, w=w: float(f(t)) * w(t) * phi(t)) for k, w in weights.items()}
        out["nu"] = expect(lambda t: float(f(t)) ** 2 * phi(t))
    return out


def check(text: str, kinks: set[float], method: str = "numeric") -> None:
    start = time.monotonic()
    try:
        h = hermite(text, center=True, method=method, timeout=0.3)
    except SymrmtInputError as exc:                     # a clean refusal, with a message
        assert str(exc) and time.monotonic() - start < SECONDS
        return
    elapsed = time.monotonic() - start
    assert elapsed < SECONDS, (text, elapsed)
    values = {k: getattr(h, k) for k in ("a0", "a1", "a2", "nu")}
    assert all(math.isfinite(v) for v in values.values()), values
    assert h.nu >= (h.a0**2 + h.a1**2 + h.a2**2) * (1 - 1e-12), values     # Parseval: nu >= a_1^2, |a_k| <= sqrt(nu)
    ref = reference(sp.parse_expr(str(h.f), local_dict={"x": sp.Symbol("x")}), kinks)
    for key, value in values.items():
        scale = h.nu if key == "nu" else math.sqrt(h.nu)          # a_k has the units of f, nu of f^2
        assert abs(value - ref[key]) <= AGREE * scale, (text, key, value, ref[key])


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")   # QUADPACK at 1e-12 near round-off
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=20)
@given(scaled_formulas(), st.sampled_from(["numeric", "numeric", "numeric", "auto"]))
@example(("sign(x**2)*x", {0.0}), "auto")
@example(("1e-15*x", set()), "auto")
@example(("1e-162*x", set()), "auto")
@example(("sin(50*x)", set()), "auto")
@example(("Abs((x - 1)**3)*tanh(x)", {1.0}), "auto")
@example(("Heaviside(tanh(2*x - 1)**2)*x", {0.5}), "auto")
@example(("1e6*(leaky_relu(sinh((3*x + 0)), 0.2))", {0.0}), "numeric")
@example(("1e6*(leaky_relu(sinh((-2*x + 0))**3, 0.2))", {0.0}), "numeric")
def test_generated_formulas_agree_or_are_refused(case, method):
    """``auto`` (closed forms by SymPy, under a 0.3 s budget) is drawn less often: it costs
    child processes; ``numeric`` is the quadrature every closed form is checked against."""
    check(*case, method=method)


# ------------------------------------------------------------ injection regression

# The parser's list (tests/test_nonlinearity.py) plus the payloads that reach the file system or SymPy.
INJECTIONS = [*PARSER_INJECTIONS, *(
    "__import__('os').system('touch {canary}')",
    "open('{canary}', 'w').write('x')",
    'exec("open(\'{canary}\', \'w\')")',
    'x.__class__.__bases__[0].__subclasses__()',
    "f'{{x}}'",
    "Function('f')(x)",
    'x^3',
    '9**9**9',
    'exp(exp(exp(64)))*x',
    'x**(0**-1)',
    '(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))',
    'e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**e**x',
    'x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x',
    '\x00x',
    'x\n+1',
    'breakpoint()',
    'globals()',
    '__builtins__',
    'x.subs(x, 1)',
    'Lambda(x, x)(x)',
)]


@pytest.mark.parametrize("payload", INJECTIONS)
def test_injection_strings_stay_refused_and_run_nothing(tmp_path, payload):
    canary = tmp_path / "pwned"
    text = payload.format(canary=canary) if "{canary}" in payload else payload.replace("{{", "{").replace("}}", "}")
    start = time.monotonic()
    with pytest.raises(SymrmtInputError):
        hermite(text)
    with pytest.raises(SymrmtInputError):
        parse_nonlinearity(text)
    assert not canary.exists() and time.monotonic() - start < 10
