r"""SymPy expressions to text and back, without eval: the format of the disk cache.

:func:`sympy.srepr` is the canonical text of an expression, but reading it back with
``eval`` or :func:`sympy.sympify` runs whatever the text holds. :func:`from_srepr`
instead walks the Python AST of the text and accepts a closed grammar:

- calls of the SymPy classes of :data:`NODES` only (arithmetic, the elementary and special
  functions a Hermite closed form is made of, ``Piecewise`` and its relations), with
  positional arguments that are themselves such calls, integers, or the constants of
  :data:`CONSTANTS` (``pi``, ``E``). Nothing that binds a variable (``Sum``, ``Product``,
  ``Integral``, ``Lambda``) is a node: a bound variable is not a free symbol, so it would
  slip past every check of the expression's symbols;
- the few literal arguments ``srepr`` puts in: the name and boolean assumptions of a
  ``Symbol``, the decimal string and ``precision`` of a ``Float``. A Symbol's name must be
  a name the package creates (:data:`SYMBOL_NAME`: letters, digits and ``_``, as the
  formula parser makes them), since :func:`sympy.lambdify` and :func:`sympy.latex` print
  names raw into the code and the TeX they write. A string anywhere else is refused,
  because SymPy constructors pass strings to ``sympify`` (and thus to ``eval``);
- sizes bounded before anything is built (SymPy evaluates numbers as it builds them): at
  most :data:`MAX_NODES` nodes, :data:`MAX_DEPTH` levels, integer literals of at most
  4000 digits, powers of a number whose result has at most :data:`MAX_BITS` bits, and
  combinatorial arguments (``factorial``, ``gamma``, ...) of at most 1000, so that
  ``bell(10**6)``, a power tower or ``binomial(10**6, 5*10**5)`` is refused at once.

The rebuilt expression must print back to the same text.

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
from keyword import iskeyword
import re

import sympy as sp
from sympy.functions.special.hyper import TupleArg

__all__ = ["to_srepr", "from_srepr", "NODES", "CONSTANTS", "SYMBOL_NAME"]

MAX_CHARS = 100_000  # one cached closed form; real ones are a few hundred characters
MAX_NODES = 20_000   # syntax nodes of one expression (real closed forms have a few hundred)
MAX_DEPTH = 200      # nesting of calls (Python's own parser and SymPy's printers recurse on it)
MAX_BITS = 100_000   # a power of a rational number (or a sum, product of them) is evaluated: its size in bits
_MAX_DIGITS = 4000  # integer literals (the Gaussian moments of degree-64 polynomials have ~110 digits)
_MAX_EXPONENT = 10_000  # Pow(number, integer) beyond this would be evaluated at great cost
_MAX_FUNCTION_INTEGER = 1000  # e.g. gamma(Integer(10**6)) is evaluated (a 5.5-million-digit factorial)
_ARITHMETIC = {"Add", "Mul", "Integer", "Rational"}

#: The SymPy classes a stored expression may be made of: what Hermite closed forms (exact, table, parametric)
#: hold. A class outside it is a miss (the data are recomputed), never an error; nothing here binds a variable.
NODES = frozenset({
    "Add", "Mul", "Pow", "Integer", "Rational", "Float", "Symbol", "Tuple", "TupleArg",
    "exp", "log", "exp_polar", "polar_lift", "sin", "cos", "tan", "cot", "asin", "acos", "atan", "atan2", "sinh",
    "cosh", "tanh", "coth", "asinh", "acosh", "atanh", "sec", "csc", "sinc", "Abs", "sign", "Max", "Min", "re", "im",
    "arg", "conjugate", "floor", "ceiling", "Heaviside", "erf", "erfc", "erfi", "erf2", "erfinv", "erfcinv",
    "gamma", "lowergamma", "uppergamma", "loggamma", "polygamma", "digamma", "beta", "factorial", "factorial2",
    "binomial", "RisingFactorial", "FallingFactorial", "besseli", "besselj", "besselk", "bessely", "hyper",
    "meijerg", "expint", "Ei", "E1", "Si", "Ci", "Shi", "Chi", "li", "fresnels", "fresnelc", "zeta", "polylog",
    "LambertW", "elliptic_k", "elliptic_e", "Piecewise", "ExprCondPair", "StrictGreaterThan", "StrictLessThan",
    "GreaterThan", "LessThan", "Equality", "Unequality", "And", "Or", "Not",
})
#: The SymPy constants a stored expression may name.
CONSTANTS = frozenset({"pi", "E", "I", "EulerGamma", "Catalan", "GoldenRatio", "oo", "zoo", "nan", "true", "false"})
#: The names of the symbols the package creates (x, and the parameters the formula parser reads from f).
SYMBOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_LITERAL_CLASSES = {"Symbol": bool, "Float": int}  # classes whose text literals srepr writes


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
        tree = ast.parse(text, mode="eval").body
        _check_size(tree)
        expr = _build(tree)
    except (SyntaxError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not an srepr of a SymPy expression: {type(exc).__name__}") from None
    except (TypeError, ArithmeticError, AttributeError) as exc:  # a SymPy constructor refused its arguments
        raise ValueError(f"not an srepr of a SymPy expression: {exc}") from None
    try:
        same = sp.srepr(expr) == text
    except ValueError:                          # a number too long to print (Python's limit on int -> str)
        same = False
    if not same:
        raise ValueError("not an srepr of a SymPy expression: it does not print back to the same text")
    return expr


#: Classes ``srepr`` writes that are not in SymPy's namespace: the argument tuples of ``meijerg`` and ``hyper``
#: (a Hermite coefficient such as that of x/(1 + |x|) is a Meijer G-function).
_SUBMODULE_CLASSES = {"TupleArg": TupleArg}


def _check_size(tree: ast.AST) -> None:
    """Refuse a tree of more than :data:`MAX_NODES` nodes or :data:`MAX_DEPTH` levels, before anything is built."""
    count, level = 0, [(tree, 1)]
    while level:
        node, depth = level.pop()
        count += 1
        if count > MAX_NODES or depth > MAX_DEPTH:
            raise ValueError(f"not an srepr of a SymPy expression: more than {MAX_NODES} nodes or {MAX_DEPTH} levels")
        level.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _sympy_name(name: str):
    if name not in NODES and name not in CONSTANTS:
        raise ValueError(f"not an srepr of a SymPy expression: {name[:40]!r} is not a node of the cache's grammar")
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
    if name != "Float" and (not SYMBOL_NAME.fullmatch(text) or iskeyword(text)):
        raise ValueError(f"not an srepr of a SymPy expression: {text[:40]!r} is not a symbol name the package creates")
    if name == "Float" and (len(text) > 40_000 or not _is_decimal(text)):
        raise ValueError("not an srepr of a SymPy expression: Float literal")
    return cls(text, **options)


def _is_decimal(text: str) -> bool:
    body = text.lstrip("-")
    mantissa, _, exponent = body.partition("e")
    digits = mantissa.replace(".", "", 1)
    exponent = exponent.lstrip("+-")
    return (bool(digits) and digits.isdigit() and digits.isascii()
            and (not exponent or (exponent.isdigit() and exponent.isascii() and len(exponent) <= 6)))


def _check_cost(name: str, args: list) -> None:
    """Refuse arguments whose automatic evaluation would be very expensive (a tampered entry)."""
    if name == "Pow" and len(args) == 2 and getattr(args[0], "is_number", False):
        exponent = sp.sympify(args[1])
        if exponent.is_Rational and max(abs(exponent.p), exponent.q) > _MAX_EXPONENT:
            raise ValueError("not an srepr of a SymPy expression: a power of a number that is too large")
        if exponent.is_Rational and _bits(args[0]) * abs(exponent.p) > MAX_BITS * exponent.q:
            raise ValueError("not an srepr of a SymPy expression: a power of a number that is too large")
    if name in ("Add", "Mul") and sum(_bits(arg) for arg in args) > MAX_BITS:
        raise ValueError("not an srepr of a SymPy expression: a sum or product of numbers that are too large")
    if name not in _ARITHMETIC and name != "Pow":
        for arg in args:
            if isinstance(arg, int) or (isinstance(arg, sp.Basic) and arg.is_Rational):
                rational = sp.Rational(arg)
                if max(abs(rational.p), rational.q) > _MAX_FUNCTION_INTEGER:
                    raise ValueError(f"not an srepr of a SymPy expression: large number given to {name!r}")


def _bits(value) -> int:
    """The size in bits of a rational number (0 for anything else, which SymPy keeps unevaluated)."""
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, sp.Rational):
        return max(int(value.p).bit_length(), int(value.q).bit_length())
    return 0
