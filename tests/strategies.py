"""Strings for the parser's fuzz tests (tests/validation/test_properties.py); the strategies of the theory are
public, in :mod:`symrmt.testing.strategies`."""
from __future__ import annotations

from hypothesis import strategies as st

__all__ = ["INJECTIONS", "injection_strings", "formula_like_strings"]


#: Strings that would have a side effect if evaluated; each must be refused or parsed, never run.
INJECTIONS = (
    "__import__('os').system('echo pwned')",
    "__import__('os').remove('/tmp/symrmt_pwned')",
    "open('/tmp/symrmt_pwned', 'w').write('x')",
    "eval('1+1')",
    "exec('import os')",
    "x.__class__.__mro__[1].__subclasses__()",
    "().__class__.__bases__[0].__subclasses__()",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "lambda: __import__('os')",
    "globals()['__builtins__']",
    "getattr(x, '__class__')",
    "x if __import__('os').system('true') else x",
    "sin(x); __import__('os').system('true')",
    "tanh(x)\n__import__('os')",
    "Symbol('y')",
    "sympify('x')",
    "Function('f')(x)",
    "x.subs(x, 1)",
    "(lambda f: f(f))(lambda f: f(f))",
    "compile('1', '', 'eval')",
    "breakpoint()",
    "input()",
    "exit()",
    "__builtins__.__dict__['eval']('1')",
    "tanh(x=1)",
    "tanh(*[x])",
    "'x'",
    "b'x'",
    "x @ x",
    "x // 2",
    "x % 2",
    "x << 2",
    "not x",
    "x and 1",
    "x < 1",
    "[x]",
    "{x: 1}",
    "x[0]",
    "f'{x}'",
    "x ^ 2",
    "1e400 * x",
    "((9**64)**64)**64 * x",
    "x**(64**64)",
    "exp(exp(exp(exp(99)))) * x",
    "(" * 150 + "x" + ")" * 150,
    "x" + "+x" * 400,
    "",
    "   ",
    "\x00",
    "x\\",
)

_TOKENS = ("x", "pi", "E", "e", "1", "2.5", "1e3", "(", ")", "+", "-", "*", "/", "**", ",", " ", ".", "[", "]",
           "tanh", "sin", "exp", "relu", "erf", "Max", "__import__", "os", "system", "'", '"', "lambda", ":",
           "eval", "exec", "open", "__class__", "__subclasses__", "__builtins__", "import", ";", "=", "\n", "_", "^")


def formula_like_strings() -> st.SearchStrategy[str]:
    """Concatenations of formula tokens and dangerous names (mostly syntax errors; some valid formulas)."""
    return st.lists(st.sampled_from(_TOKENS), max_size=12).map("".join)


def injection_strings() -> st.SearchStrategy[str]:
    return st.sampled_from(INJECTIONS)
