"""The whitelist parser: a user string becomes a SymPy expression without ever being evaluated."""
from __future__ import annotations

import ast
import keyword
import math
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Callable, Sequence

import mpmath
import sympy as sp

from symrmt.errors import NonlinearityError, ParameterError, ParameterTypeError, ParseError, shown

from .constants import DPS, MAX_EXPONENT, X
from .mpmath_eval import mp_compile, NotReal, Overflow

__all__ = ["FUNCTIONS", "parse_nonlinearity", "parameter_symbols", "formula_parameters", "function_list_markdown"]

_MAX_LEN = 500
_MAX_DEPTH = 100
_MAX_CONSTANT = 10**100

# --------------------------------------------------------------------------- parsing


def _sigmoid(a: sp.Expr) -> sp.Expr:
    return 1 / (1 + sp.exp(-a))


#: The slope of leaky_relu(a) below 0 when none is given.
_LEAKY_SLOPE = sp.Rational(1, 100)


def _leaky_relu(a: sp.Expr, slope: sp.Expr = _LEAKY_SLOPE) -> sp.Expr:
    return sp.Max(a, 0) + slope * sp.Min(a, 0)


def _silu(a: sp.Expr) -> sp.Expr:
    return a * _sigmoid(a)


#: Whitelisted function names: name -> (builder, minimum arity, maximum arity).
FUNCTIONS: dict[str, tuple[Callable[..., sp.Expr], int, int]] = {
    "exp": (sp.exp, 1, 1),
    "log": (sp.log, 1, 1),
    "ln": (sp.log, 1, 1),
    "sqrt": (sp.sqrt, 1, 1),
    "cbrt": (lambda a: sp.sign(a) * sp.Abs(a) ** sp.Rational(1, 3), 1, 1),
    "sin": (sp.sin, 1, 1),
    "cos": (sp.cos, 1, 1),
    "tan": (sp.tan, 1, 1),
    "sinh": (sp.sinh, 1, 1),
    "cosh": (sp.cosh, 1, 1),
    "tanh": (sp.tanh, 1, 1),
    "atan": (sp.atan, 1, 1),
    "arctan": (sp.atan, 1, 1),
    "asinh": (sp.asinh, 1, 1),
    "arcsinh": (sp.asinh, 1, 1),
    "erf": (sp.erf, 1, 1),
    "erfc": (sp.erfc, 1, 1),
    "Abs": (sp.Abs, 1, 1),
    "abs": (sp.Abs, 1, 1),
    "Max": (sp.Max, 1, 16),
    "max": (sp.Max, 1, 16),
    "Min": (sp.Min, 1, 16),
    "min": (sp.Min, 1, 16),
    "Heaviside": (sp.Heaviside, 1, 1),
    "sign": (sp.sign, 1, 1),
    "relu": (lambda a: sp.Max(a, 0), 1, 1),
    "leaky_relu": (_leaky_relu, 1, 2),
    "elu": (lambda a: sp.Max(a, 0) + sp.Min(sp.exp(a) - 1, 0), 1, 1),
    "gelu": (lambda a: a * (1 + sp.erf(a / sp.sqrt(2))) / 2, 1, 1),
    "sigmoid": (_sigmoid, 1, 1),
    "softplus": (lambda a: sp.log(1 + sp.exp(a)), 1, 1),
    "silu": (_silu, 1, 1),
    "swish": (_silu, 1, 1),
    "softsign": (lambda a: a / (1 + sp.Abs(a)), 1, 1),
}



def function_list_markdown() -> str:
    """The whitelist as the README shows it: each function once, its aliases in parentheses, arities other than 1.

    The README's list is this text (``tests/docs/test_readme.py`` checks it).

    >>> function_list_markdown()[:40]
    '`exp`, `log` (`ln`), `sqrt`, `cbrt`, `si'
    """
    entries: dict[int, list[str]] = {}
    for name, (builder, _, _) in FUNCTIONS.items():        # aliases share their builder
        entries.setdefault(id(builder), []).append(name)
    parts = []
    for names in entries.values():
        _, lo, hi = FUNCTIONS[names[0]]
        arity = "" if lo == hi == 1 else f", {lo} to {hi} arguments"
        aliases = ", ".join(f"`{n}`" for n in names[1:])
        note = f" ({aliases}{arity})" if aliases else (f" ({arity[2:]})" if arity else "")
        parts.append(f"`{names[0]}`{note}")
    return ", ".join(parts) + "."


# Builders whose SymPy constructors compare their arguments (see _Builder._call).
_COMPARING = {"Abs", "abs", "Max", "max", "Min", "min", "Heaviside", "sign", "relu", "leaky_relu", "elu", "cbrt",
              "softsign"}

_NAMES: dict[str, sp.Expr] = {"x": X, "pi": sp.pi, "E": sp.E, "e": sp.E}
#: Names that SymPy or NumPy read as the imaginary unit or a non-finite number: never a parameter of a real f
#: (``oo*x`` taken for a parameter ``oo`` would print a_1 = oo and ask for ``--param oo=VALUE``).
_NOT_PARAMETERS = {"I": "the imaginary unit", "oo": "infinity", "zoo": "complex infinity", "nan": "not a number",
                   "NaN": "not a number", "inf": "infinity", "Inf": "infinity", "infinity": "infinity"}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: None,  # handled by _power (exponent size check)
}

_VOCABULARY = (
    "allowed: the variable x; constants pi, E (or e); int/float numbers; "
    "+ - * / ** and parentheses; functions " + ", ".join(sorted(FUNCTIONS, key=str.lower))
)


def _refuse(src: str, node: ast.AST | None, what: str) -> ParseError:
    snippet = ast.get_source_segment(src, node) if node is not None else None
    token = f" {snippet[:60]!r}" if snippet else ""
    return ParseError(f"cannot parse nonlinearity {src[:80]!r}: {what}{token} is not allowed ({_VOCABULARY})")


def _constant_value(value: sp.Expr, src: str):
    """The value of a constant subexpression, by the guarded evaluator: SymPy itself would
    happily spend hours on ``exp(exp(exp(64)))`` when asked to compare or round it."""
    try:
        with mpmath.workdps(DPS):
            v = mp_compile(value)(None)
        if not mpmath.isfinite(v):
            raise Overflow(f"value {v}")
        return v
    except Overflow as exc:
        raise ParseError(
            f"cannot parse nonlinearity {src[:80]!r}: the constant {str(value)[:60]!r} is astronomically "
            f"large ({exc})"
        ) from None
    except (ZeroDivisionError, ValueError, TypeError, AttributeError) as exc:
        raise ParseError(
            f"cannot parse nonlinearity {src[:80]!r}: bad constant {str(value)[:60]!r} ({exc})"
        ) from None


def _power(base: sp.Expr, exponent: sp.Expr, src: str, node: ast.AST) -> sp.Expr:
    if not exponent.free_symbols and abs(_constant_value(exponent, src)) > MAX_EXPONENT:
        raise ParseError(
            f"cannot parse nonlinearity {src[:80]!r}: exponent in {ast.get_source_segment(src, node)!r} "
            f"is larger than {MAX_EXPONENT} in absolute value; use a smaller power"
        )
    if base.is_Rational and exponent.is_Integer and base not in (0, 1, -1):
        bits = abs(int(exponent)) * max(abs(base.p).bit_length(), base.q.bit_length())
        if bits > 4096:
            raise ParseError(
                f"cannot parse nonlinearity {src[:80]!r}: the number {ast.get_source_segment(src, node)!r} "
                "is too large (more than 4096 bits)"
            )
    return base**exponent


class _Builder:
    """Walk a Python AST and build the SymPy expression, refusing anything not whitelisted."""

    def __init__(self, src: str, names: dict[str, sp.Expr] | None = None):
        self.src, self.names = src, names or _NAMES

    def build(self, node: ast.AST, depth: int = 0) -> sp.Expr:
        value = self._build(node, depth)
        if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ParseError(
                f"cannot parse nonlinearity {self.src[:80]!r}: {ast.get_source_segment(self.src, node)!r} is "
                "infinite or undefined (division by zero?)"
            )
        if not value.free_symbols:   # a constant (parameters are symbols, checked when given values)
            self._check_constant(value, node)
        return value

    def _check_constant(self, value: sp.Expr, node: ast.AST) -> None:
        """Constants must be real and at most 1e100 in size: checked bottom-up by the guarded
        evaluator before SymPy sees them, because SymPy's own comparisons of, e.g.,
        ``tan(1/(1 + exp(10**200)))`` can run for hours."""
        v = value if value.is_Rational else _constant_value(value, self.src)
        if isinstance(v, mpmath.mpc) and abs(v.imag) > 1e-25 * (1 + abs(v.real)):
            raise ParseError(
                f"cannot parse nonlinearity {self.src[:80]!r}: the constant {ast.get_source_segment(self.src, node)!r} "
                "is not real; f must be real-valued"
            )
        if abs(v) > _MAX_CONSTANT:
            raise ParseError(
                f"cannot parse nonlinearity {self.src[:80]!r}: the constant {ast.get_source_segment(self.src, node)!r} "
                "is larger than 1e100 in absolute value"
            )

    def _build(self, node: ast.AST, depth: int) -> sp.Expr:
        if depth > _MAX_DEPTH:
            raise ParseError(f"nonlinearity is nested more than {_MAX_DEPTH} levels deep; simplify it")
        if isinstance(node, ast.Expression):
            return self.build(node.body, depth + 1)
        if isinstance(node, ast.BinOp):
            return self._binop(node, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self.build(node.operand, depth + 1)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.Name):
            if node.id in _NOT_PARAMETERS:
                raise ParseError(f"nonlinearity {self.src[:80]!r}: {node.id} reads as {_NOT_PARAMETERS[node.id]}, "
                                 "but f must be a real, finite function of x; write a number, or give a parameter "
                                 "another name (e.g. s)")
            if node.id in self.names:
                return self.names[node.id]
            raise _refuse(self.src, node, "unknown name")
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        raise _refuse(self.src, node, f"{type(node).__name__} syntax")

    def _binop(self, node: ast.BinOp, depth: int) -> sp.Expr:
        if type(node.op) not in _BINOPS:
            if isinstance(node.op, ast.BitXor):
                raise ParseError(
                    f"cannot parse nonlinearity {self.src[:80]!r}: '^' is XOR in Python syntax (and binds "
                    "looser than +); write powers with '**', e.g. x**3 - 3*x"
                )
            raise _refuse(self.src, node, f"operator {type(node.op).__name__} in")
        left, right = self.build(node.left, depth + 1), self.build(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            return _power(left, right, self.src, node)
        if isinstance(node.op, ast.Div) and right == 0:
            raise ParseError(f"nonlinearity {self.src[:80]!r} divides by zero")
        return _BINOPS[type(node.op)](left, right)

    def _constant(self, node: ast.Constant) -> sp.Expr:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _refuse(self.src, node, f"{type(value).__name__} literal")
        if isinstance(value, int):
            return sp.Integer(value)
        if not math.isfinite(value):
            raise _refuse(self.src, node, "non-finite number")
        text = ast.get_source_segment(self.src, node) or repr(value)
        try:
            return sp.Rational(text.replace("_", ""))
        except (TypeError, ValueError):  # pragma: no cover - Python literals are valid decimals
            return sp.Rational(repr(value))

    def _call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise _refuse(self.src, node.func, "unknown function")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _refuse(self.src, node, "keyword or starred argument in")
        builder, lo, hi = FUNCTIONS[node.func.id]
        if not lo <= len(node.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise ParseError(
                f"cannot parse nonlinearity {self.src[:80]!r}: {node.func.id} takes {want} argument(s), "
                f"got {len(node.args)}"
            )
        args = [self.build(a, depth + 1) for a in node.args]
        if node.func.id in _COMPARING:
            for arg, arg_node in zip(args, node.args):
                if X not in arg.free_symbols and any(not p.exp.is_Rational for p in arg.atoms(sp.Pow)):
                    raise ParseError(
                        f"cannot parse nonlinearity {self.src[:80]!r}: the constant argument "
                        f"{ast.get_source_segment(self.src, arg_node)!r} of {node.func.id} has a non-rational "
                        "power, which SymPy may take unbounded time to compare; give its value as a decimal"
                    )
        try:
            return builder(*args)
        except (ValueError, TypeError, ArithmeticError) as exc:  # e.g. SymPy's Max of incomparable constants
            raise ParseError(
                f"cannot parse nonlinearity {self.src[:80]!r}: {ast.get_source_segment(self.src, node)!r} "
                f"cannot be built ({exc})"
            ) from None


def _parse_string(src: str, names: dict[str, sp.Expr] | None = None) -> sp.Expr:
    text = src.strip()
    if not text:
        raise ParseError("nonlinearity is empty; give an expression in x such as 'tanh(x)'")
    # Python's parser drops a comment and echoes control characters: f would be shown as typed (a terminal
    # escape sequence included) but computed without what follows '#'.
    odd = next((i for i, ch in enumerate(text[:_MAX_LEN + 1]) if ch == "#" or not (ch.isprintable() or ch == " ")),
               None)
    if odd is not None:
        what = "'#' (it would start a comment that hides the rest)" if text[odd] == "#" else \
            f"the character U+{ord(text[odd]):04X} (not a printable character)"
        raise ParseError(f"nonlinearity {text[:80]!r} holds {what} at position {odd}; write the formula on one "
                         "line in plain characters, such as 'tanh(x)'")
    if len(text) > _MAX_LEN:
        raise ParseError(f"nonlinearity is {len(text)} characters long; at most {_MAX_LEN} are accepted")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        reason = getattr(exc, "msg", None) or type(exc).__name__
        raise ParseError(
            f"cannot parse nonlinearity {text[:80]!r}: {reason}; write a formula in x such as 'tanh(x)' "
            f"({_VOCABULARY})"
        ) from None
    try:
        return _Builder(text, names).build(tree)
    except RecursionError:
        raise ParseError(f"nonlinearity {text[:80]!r} is nested too deeply; simplify it") from None


def _from_sympy(expr: sp.Basic, symbols: tuple[sp.Symbol, ...] = ()) -> sp.Expr:
    if not isinstance(expr, sp.Expr):
        raise NonlinearityError(f"nonlinearity must be a SymPy expression in x, got {type(expr).__name__}")
    return as_expression_in_x(expr, symbols)


def as_expression_in_x(expr: sp.Expr, symbols: tuple[sp.Symbol, ...] = ()) -> sp.Expr:
    """``expr`` with its symbol named ``x`` (any assumptions) replaced by :data:`X`, and those
    named as ``symbols`` by them; any other free symbol is refused."""
    by_name = {s.name: s for s in symbols}
    others = sorted(str(s) for s in expr.free_symbols if getattr(s, "name", None) not in ("x", *by_name))
    if others:
        raise NonlinearityError(
            f"nonlinearity {str(expr)[:80]!r} has symbols {', '.join(others)} besides x; it must depend on x only "
            "(substitute numbers for the other symbols)"
        )
    return expr.xreplace({s: X if s.name == "x" else by_name[s.name] for s in expr.free_symbols})


REAL_PROBES = (-5.3, -2.9, -1.3, -0.7, -0.1, 0.1, 0.7, 1.3, 2.9, 5.3)


def _check_real(expr: sp.Expr, label: str) -> None:
    try:
        fn = mp_compile(expr)
    except Overflow as exc:
        raise NonlinearityError(f"nonlinearity {label} contains an astronomically large constant ({exc})") from None
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise NonlinearityError(f"nonlinearity {label} contains a constant that cannot be evaluated ({exc})") from None
    with mpmath.workdps(DPS):
        for t in REAL_PROBES:
            try:
                value = fn(mpmath.mpf(t))
            except NotReal as exc:
                raise NonlinearityError(
                    f"nonlinearity {label} is not real-valued (a part of it is {exc} at x = {t}); use a real "
                    "version such as log(Abs(x)) for log(x), sqrt(Abs(x)) for sqrt(x), cbrt(x) for x**(1/3)"
                ) from None
            except Overflow as exc:
                raise NonlinearityError(
                    f"nonlinearity {label} cannot be evaluated at x = {t} ({exc}): it is astronomically large "
                    "there and cannot be square-integrable under the Gaussian"
                ) from None
            except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
                raise NonlinearityError(f"nonlinearity {label} cannot be evaluated at x = {t}: {exc}") from None
            if isinstance(value, mpmath.mpc) and abs(value.imag) > 1e-20 * (1 + abs(value.real)):
                raise NonlinearityError(
                    f"nonlinearity {label} is not real-valued (f({t}) = {mpmath.nstr(value, 6)}); use a real "
                    "version such as log(Abs(x)) for log(x), sqrt(Abs(x)) for sqrt(x), cbrt(x) for x**(1/3)"
                )
            if not mpmath.isfinite(value):
                raise NonlinearityError(
                    f"nonlinearity {label} is infinite or undefined at x = {t} (value {value}): it cannot be "
                    "square-integrable under the Gaussian"
                )


def parse_nonlinearity(f: str | sp.Expr, parameters: Sequence[str] = ()) -> sp.Expr:
    r"""Turn a user's nonlinearity into a real SymPy expression in :data:`X`.

    Strings are parsed by a whitelist walk of their Python AST (never evaluated):
    see the module docstring and :data:`FUNCTIONS` for the vocabulary. A SymPy
    expression is accepted if its only free symbol is named ``x`` (any
    assumptions; it is replaced by :data:`X`).

    Parameters
    ----------
    f : str or sympy.Expr
        The nonlinearity, e.g. ``"tanh(x)"`` or ``"relu(x) - 1/sqrt(2*pi)"``.

    Returns
    -------
    sympy.Expr
        The expression :math:`f(x)`, real for real x and depending on x.

    Raises
    ------
    ParseError
        For anything outside the vocabulary (the message names the offending
        token and lists what is allowed).
    NonlinearityError
        For an f that does not depend on x, is not real-valued, has symbols
        other than x, or is not a string or SymPy expression.

    See Also
    --------
    symrmt.hermite : The Hermite coefficients of the parsed f.

    Examples
    --------
    >>> parse_nonlinearity("relu(x) - 0.5")
    Max(0, x) - 1/2
    >>> parse_nonlinearity("__import__('os')")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParseError: cannot parse nonlinearity "__import__('os')": unknown function '__import__' is not allowed (...)
    """
    symbols = parameter_symbols(parameters)
    if isinstance(f, str):
        return _parse_string_cached(f, symbols)
    if isinstance(f, sp.Basic):
        return _validate(_from_sympy(f, symbols), repr(str(f)[:80]), symbols)
    raise NonlinearityError(f"nonlinearity must be a string or a SymPy expression, got {type(f).__name__}")


@lru_cache(maxsize=512)
def _parse_string_cached(src: str, symbols: tuple[sp.Symbol, ...] = ()) -> sp.Expr:
    name = src.strip()
    if name in FUNCTIONS and FUNCTIONS[name][1] <= 1 <= FUNCTIONS[name][2]:
        src = f"{name}(x)"                     # a bare function name means that function of x
    names = {**_NAMES, **{s.name: s for s in symbols}}
    return _validate(_parse_string(src, names), repr(src.strip()[:80]), symbols)


_PARAMETER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
#: Probe values of the parameters for the realness check (a parametric f is checked again where evaluated).
_PARAMETER_PROBES = (sp.Rational(7, 10), sp.Rational(13, 10), sp.Rational(37, 100))


def formula_parameters(f: object) -> list[str]:
    """The names of f's symbolic parameters, sorted: in a formula, the names other than x, the
    constants and the whitelisted functions (a name that cannot be a parameter is left to the
    parser to refuse); in a SymPy expression, the symbols other than x; nothing for anything else.

    Parameters
    ----------
    f : object
        A formula, a SymPy expression, or anything else.

    Returns
    -------
    list of str
        The parameters' names, sorted; empty for a callable or a number.

    Raises
    ------
    Nothing
        A name that cannot be a parameter is left to :func:`parse_nonlinearity` to refuse.

    See Also
    --------
    parse_nonlinearity : Reads the formula.

    Examples
    --------
    >>> formula_parameters("tanh(s*x) + b")
    ['b', 's']
    >>> formula_parameters("relu(x)"), formula_parameters("s(x)")
    ([], [])
    """
    if isinstance(f, sp.Basic):
        return sorted(str(s) for s in f.free_symbols if getattr(s, "name", None) != "x")
    if not isinstance(f, str) or len(f) > _MAX_LEN:
        return []
    try:
        tree = ast.parse(f.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):   # ValueError: NUL, unencodable characters
        return []                                                    # the parser will say what is wrong
    # a called name is a function, a name with an attribute is not f's: both are the parser's to refuse
    other = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)} | \
        {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and id(node) not in other}
    return sorted(n for n in names - set(_NAMES) - set(FUNCTIONS) - set(_NOT_PARAMETERS)
                  if _PARAMETER_NAME.fullmatch(n) and not keyword.iskeyword(n))


def parameter_symbols(parameters: Sequence[str] | str) -> tuple[sp.Symbol, ...]:
    """Real SymPy symbols for parameter names, refused when they clash with the vocabulary."""
    if isinstance(parameters, str):
        parameters = [parameters]
    if not isinstance(parameters, Iterable) or isinstance(parameters, bytes) or getattr(parameters, "ndim", 1) == 0:
        raise ParameterTypeError(f"parameters = {shown(parameters)}: give a list of parameter names, e.g. ['s'].")
    symbols = []
    for name in parameters:
        name = getattr(name, "name", name)
        if not isinstance(name, str) or not _PARAMETER_NAME.fullmatch(name) or keyword.iskeyword(name) \
                or name in _NAMES or name in FUNCTIONS or name in _NOT_PARAMETERS:
            raise ParameterError(
                f"parameter name {name!r} is not allowed: use a letter then letters, digits or _ (at most 32), "
                "other than x, pi, e, E, the names of non-finite or imaginary numbers (I, oo, zoo, nan, inf) and "
                "the function names"
            )
        symbols.append(sp.Symbol(name, real=True))
    if len(set(symbols)) != len(symbols):
        raise ParameterError(f"parameter names {list(parameters)!r} repeat a name")
    return tuple(symbols)


def _validate(expr: sp.Expr, label: str, symbols: tuple[sp.Symbol, ...] = ()) -> sp.Expr:
    if symbols:
        unused = [s.name for s in symbols if s not in expr.free_symbols]
        if unused:
            raise NonlinearityError(f"nonlinearity {label} does not contain the parameters {', '.join(unused)}")
        errors = []
        for probe in _PARAMETER_PROBES:            # usable at one probe at least (f may vanish at one)
            try:
                _validate(expr.xreplace({s: probe for s in symbols}), label)
                return expr
            except NonlinearityError as exc:
                errors.append(exc)
        raise errors[0]
    if X not in expr.free_symbols:
        raise NonlinearityError(
            f"nonlinearity {label} does not depend on x (it is the constant {expr}); attention needs a "
            "non-constant f such as tanh(x)"
        )
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan, sp.I):
        raise NonlinearityError(f"nonlinearity {label} contains an infinite, undefined or imaginary constant")
    _check_real(expr, label)
    return expr

