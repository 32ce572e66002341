r"""The grammar of the code ``lambdify`` writes, checked before a cached compiled system's code is compiled.

A compiled-system entry (:mod:`symrmt.codegen.system_cache`) holds the source of each generated function. It is
compiled only if it is one ``def`` whose body assigns names and returns, whose expressions are arithmetic,
comparisons and calls of names the namespace holds (ufuncs, numbers, the few array functions of :data:`COMPUTING`),
with no constant beyond :data:`MAX_INT_BITS` bits and no power Python would evaluate in exact integers at great
cost (``10**10**10``). Anything else is :class:`Refused`.
"""
from __future__ import annotations

import ast
from typing import Any

import numpy as np

__all__ = ["Refused", "COMPUTING", "MAX_SOURCE_BYTES", "MAX_INT_BITS", "computes_only", "checked_source"]

#: The longest source of one generated function that is read.
MAX_SOURCE_BYTES = 20_000_000


class Refused(ValueError):
    """An entry that is not what this package writes."""


#: Functions generated code may call besides the ufuncs: they compute arrays and do nothing else (no I/O).
COMPUTING = frozenset({"reduce", "select", "where", "real", "imag", "amax", "amin", "array", "asarray", "abs", "min",
                        "max"})


def computes_only(name: str, value: Any) -> bool:
    """Whether ``value`` may be called by generated code: a ufunc, a number, or one of :data:`COMPUTING`."""
    if isinstance(value, np.ufunc) or (isinstance(value, (int, float, complex)) and not isinstance(value, bool)):
        return True
    return name in COMPUTING and callable(value)


_ALLOWED = (ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.Return, ast.Name, ast.Load,
            ast.Store, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Call, ast.List, ast.Tuple, ast.Compare, ast.BoolOp,
            ast.IfExp, ast.keyword, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.Expr)


def checked_source(source: Any, namespace: dict) -> ast.Module:
    """The parsed ``source`` if it is one function of the grammar in the module docstring, else :class:`Refused`."""
    if not isinstance(source, str) or len(source) > MAX_SOURCE_BYTES:
        raise Refused("malformed source")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        raise Refused("the source does not parse") from None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        raise Refused("the source is not one function")
    function = tree.body[0]
    arguments = function.args
    if (function.decorator_list or function.returns or arguments.vararg or arguments.kwarg or arguments.kwonlyargs
            or arguments.posonlyargs or arguments.defaults):
        raise Refused("the function's signature is not lambdify's")
    known = {a.arg for a in arguments.args} | set(namespace)
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise Refused(f"the source has a {type(node).__name__}")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, complex, str, type(None))):
            raise Refused("the source has a constant of another kind")
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value.bit_length() > MAX_INT_BITS:
            raise Refused("the source has an integer constant that is too large")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            _check_power(node)
        if isinstance(node, ast.Expr) and not (node is function.body[0] and isinstance(node.value, ast.Constant)):
            raise Refused("the source has an expression statement")
    for statement in function.body:
        if isinstance(statement, ast.Assign):
            if not all(isinstance(t, ast.Name) for t in statement.targets):
                raise Refused("an assignment to something other than a name")
            _names_known(statement.value, known)
            known |= {t.id for t in statement.targets}
        elif isinstance(statement, ast.Return):
            _names_known(statement.value, known)
        elif not isinstance(statement, ast.Expr):
            raise Refused("a statement lambdify does not write")
    return tree


#: Integer constants of generated code (lambdify writes small ones: exponents, counts) and of powers of them.
MAX_INT_BITS = 1024
MAX_CONSTANT_EXPONENT = 1024


def _check_power(node: ast.BinOp) -> None:
    """Refuse a power that Python would evaluate in exact integers at great cost (``10**10**10``): an exponent
    that is a computed constant, or a constant base and a constant exponent beyond :data:`MAX_CONSTANT_EXPONENT`.
    Powers of variables are float arrays: they overflow to infinity, at no cost."""
    def constant(sub: ast.AST) -> bool:
        return not any(isinstance(n, ast.Name) for n in ast.walk(sub))

    exponent = node.right.operand if isinstance(node.right, ast.UnaryOp) else node.right
    if constant(node.right) and not isinstance(exponent, ast.Constant):
        raise Refused("the source has a power whose exponent is a computed constant")
    if constant(node.left) and constant(node.right) and (
            any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow) for n in ast.walk(node.left))
            or not abs(exponent.value) <= MAX_CONSTANT_EXPONENT):
        raise Refused("the source has a power of constants that is too large")


def _names_known(node: ast.AST | None, known: set) -> None:
    for sub in ast.walk(node) if node is not None else ():
        if isinstance(sub, ast.Name) and (sub.id not in known or sub.id.startswith("__")):
            raise Refused(f"the source reads the unknown name {sub.id[:40]!r}")
