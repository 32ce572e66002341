r"""SymPy expressions to text and back, without eval: the format of the disk cache.

:func:`sympy.srepr` is the canonical text of an expression, but reading it back with
``eval`` or :func:`sympy.sympify` runs whatever the text holds. :func:`from_srepr`
instead walks the Python AST of the text and accepts only what ``srepr`` writes:
calls of SymPy classes (``Add``, ``Pow``, ``erf``, ...) with positional arguments
that are themselves such calls, integers, or SymPy constants (``pi``, ``E``), plus
the few literal arguments ``srepr`` puts in: the name and boolean assumptions of a
``Symbol``, the decimal string and ``precision`` of a ``Float``. A string anywhere
else is refused, because SymPy constructors pass strings to ``sympify`` (and thus to
``eval``). The rebuilt expression must print back to the same text.

>>> import sympy as sp
>>> x = sp.Symbol("x", real=True)
>>> text = to_srepr(sp.erf(x) / sp.sqrt(2))
>>> from_srepr(text) == sp.erf(x) / sp.sqrt(2)
True
>>> from_srepr("Add(Symbol('x'), __import__('os').system('echo hi'))")
Traceback (most recent call last):
...
ValueError: not an srepr of a SymPy expression: call of "__import__('os').system"
"""
from __future__ import annotations

import ast

import sympy as sp
from sympy.functions.special.hyper import TupleArg

__all__ = ["to_srepr", "from_srepr"]

MAX_CHARS = 100_000  # one cached closed form; real ones are a few hundred characters
_MAX_DIGITS = 4000  # integer literals (the Gaussian moments of degree-64 polynomials have ~110 digits)
_MAX_EXPONENT = 10_000  # Pow(number, integer) beyond this would be evaluated at great cost
_MAX_FUNCTION_INTEGER = 10**6  # e.g. factorial(Integer(10**9)) would be evaluated at great cost
_ARITHMETIC = {"Add", "Mul", "Integer", "Rational"}
_LITERAL_CLASSES = {"Symbol": bool, "Dummy": bool, "Float": int}  # classes whose text literals srepr writes


def to_srepr(expr: sp.Basic) -> str:
    """The canonical text of ``expr`` (:func:`sympy.srepr`)."""
    return sp.srepr(expr)


def from_srepr(text: str) -> sp.Basic:
    """The SymPy expression whose :func:`sympy.srepr` is ``text``; never evaluates the text.

    Raises
    ------
    ValueError
        If ``text`` is not exactly what ``srepr`` writes for some expression (unknown
        names, strings where none belong, oversized numbers, or a rebuilt expression
        that prints differently).
    """
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        raise ValueError("not an srepr of a SymPy expression: not a string of at most 100000 characters")
    try:
        expr = _build(ast.parse(text, mode="eval").body)
    except (SyntaxError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not an srepr of a SymPy expression: {type(exc).__name__}") from None
    except (TypeError, ArithmeticError, AttributeError) as exc:  # a SymPy constructor refused its arguments
        raise ValueError(f"not an srepr of a SymPy expression: {exc}") from None
    if sp.srepr(expr) != text:
        raise ValueError("not an srepr of a SymPy expression: it does not print back to the same text")
    return expr


#: Classes ``srepr`` writes that are not in SymPy's namespace: the argument tuples of ``meijerg`` and ``hyper``
#: (a Hermite coefficient such as that of x/(1 + |x|) is a Meijer G-function).
_SUBMODULE_CLASSES = {"TupleArg": TupleArg}


def _sympy_name(name: str):
    obj = _SUBMODULE_CLASSES.get(name) or getattr(sp, name, None)
    if isinstance(obj, sp.Basic) or (isinstance(obj, type) and issubclass(obj, sp.Basic)):
        return obj
    raise ValueError(f"not an srepr of a SymPy expression: call of {name!r}" if obj is None or callable(obj)
                     else f"not an srepr of a SymPy expression: name {name!r}")


def _build(node: ast.AST):
    if isinstance(node, ast.Name):
        value = _sympy_name(node.id)
        if isinstance(value, type):
            raise ValueError(f"not an srepr of a SymPy expression: bare class {node.id!r}")
        return value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -_integer(node.operand)
    if isinstance(node, ast.Constant):
        return _integer(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return _call(node)
    what = f"call of {ast.unparse(node.func)[:40]!r}" if isinstance(node, ast.Call) else type(node).__name__
    raise ValueError(f"not an srepr of a SymPy expression: {what}")


def _integer(node: ast.Constant) -> int:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"not an srepr of a SymPy expression: literal {type(value).__name__} out of place")
    if value.bit_length() > _MAX_DIGITS * 3.33:
        raise ValueError("not an srepr of a SymPy expression: integer literal too large")
    return value


def _call(node: ast.Call):
    name = node.func.id
    cls = _sympy_name(name)
    if not isinstance(cls, type):
        raise ValueError(f"not an srepr of a SymPy expression: call of the constant {name!r}")
    if name in _LITERAL_CLASSES:
        return _literal_call(cls, name, node)
    if node.keywords:
        raise ValueError(f"not an srepr of a SymPy expression: keyword argument of {name!r}")
    args = [_build(a) for a in node.args]
    _check_cost(name, args)
    return cls(*args)


def _literal_call(cls, name: str, node: ast.Call):
    """Symbol('x', real=True), Dummy('x'), Float('0.5', precision=53): the only string literals."""
    if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
        raise ValueError(f"not an srepr of a SymPy expression: arguments of {name!r}")
    kind = _LITERAL_CLASSES[name]
    options = {}
    for keyword in node.keywords:
        value = getattr(keyword.value, "value", None) if isinstance(keyword.value, ast.Constant) else None
        if keyword.arg is None or type(value) is not kind or (kind is int and not 1 <= value <= 100_000):
            raise ValueError(f"not an srepr of a SymPy expression: option of {name!r}")
        options[keyword.arg] = value
    if name == "Float" and set(options) - {"precision"}:
        raise ValueError("not an srepr of a SymPy expression: option of 'Float'")
    text = node.args[0].value
    if name == "Float" and (len(text) > 40_000 or not _is_decimal(text)):
        raise ValueError("not an srepr of a SymPy expression: Float literal")
    return cls(text, **options)


def _is_decimal(text: str) -> bool:
    body = text.lstrip("-")
    mantissa, _, exponent = body.partition("e")
    digits = mantissa.replace(".", "", 1)
    return bool(digits) and digits.isdigit() and (not exponent or exponent.lstrip("+-").isdigit())


def _check_cost(name: str, args: list) -> None:
    """Refuse arguments whose automatic evaluation would be very expensive (a tampered entry)."""
    if name == "Pow" and len(args) == 2 and getattr(args[0], "is_number", False):
        exponent = sp.sympify(args[1])
        if exponent.is_Rational and max(abs(exponent.p), exponent.q) > _MAX_EXPONENT:
            raise ValueError("not an srepr of a SymPy expression: a power of a number that is too large")
    if name not in _ARITHMETIC and name != "Pow":
        for arg in args:
            if isinstance(arg, int) or (isinstance(arg, sp.Basic) and arg.is_Rational):
                rational = sp.Rational(arg)
                if max(abs(rational.p), rational.q) > _MAX_FUNCTION_INTEGER:
                    raise ValueError(f"not an srepr of a SymPy expression: large number given to {name!r}")
