"""symrmt.nonlinearity.parse: the whitelist parser refuses everything outside its vocabulary and runs nothing."""
from __future__ import annotations

import ast
import builtins
import time

import pytest
import sympy as sp

from _support.hermite_reference import THEORY, close
from symrmt import nonlinearity as nl
from symrmt.errors import SymrmtInputError
from symrmt.nonlinearity import X, hermite, parse_nonlinearity


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


def test_bare_function_name_means_function_of_x():
    assert parse_nonlinearity("tanh") == parse_nonlinearity("tanh(x)")


# The parser's list (INJECTIONS above) plus the payloads that reach the file system or SymPy.
PAYLOADS = [*INJECTIONS, *(
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


@pytest.mark.parametrize("payload", PAYLOADS)
def test_injection_strings_stay_refused_and_run_nothing(tmp_path, payload):
    canary = tmp_path / "pwned"
    text = payload.format(canary=canary) if "{canary}" in payload else payload.replace("{{", "{").replace("}}", "}")
    start = time.monotonic()
    with pytest.raises(SymrmtInputError):
        hermite(text)
    with pytest.raises(SymrmtInputError):
        parse_nonlinearity(text)
    assert not canary.exists() and time.monotonic() - start < 10
