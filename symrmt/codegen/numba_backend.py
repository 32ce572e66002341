r"""The Numba back end: a generated NumPy function as one machine-code loop over the points.

An exact system (an algebraic form: no spectral average) is solved by Newton's method on its
residuals :math:`F(t)`, their Jacobian :math:`\partial F/\partial t` and their derivative
:math:`\partial F/\partial v` in the continuation variable, evaluated at every point
(:meth:`~symrmt.solve.CompiledSystem.residual`), and its observables are evaluated once at the
solution. The NumPy functions of :mod:`.numpy_backend` make one NumPy call per operation; on the few
points of a continuation step that overhead is most of the time. The kernel here runs the *same
statements* point by point, writing the rows of one ``(outputs, points)`` array:

.. code-block:: python

    def kernel(X, out):                     # X: (arguments, N), out: (outputs, N)
        for i in range(X.shape[1]):
            t_11 = X[0, i]
            ...
            x0 = max(0, 1 - c)              # lambdify's statement reduce(maximum, [0, 1 - c])
            ...
            out[0, i] = t_11 - x0 * (...)

It is built from the NumPy function's own source (what :func:`sympy.lambdify` wrote, read back with
:mod:`inspect` and rewritten with :mod:`ast`), so the operations and their order are the NumPy
function's, and the arithmetic is IEEE without fast-math: the two agree bit for bit
(``tests/codegen/test_numba_backend.py``). Where NumPy computes a power by a fast path (the exponents
-1, 1/2, 2) the kernel computes the same thing. Arithmetic, integer powers, square roots, ``Max``,
``Min``, ``Abs`` and ``Piecewise`` (comparisons and logical operators) are compiled; a function with
anything else (a transcendental function, whose NumPy implementation is not libm's) keeps its NumPy
function. When a kernel is compiled is :mod:`symrmt.runtime.jit`'s decision; compiled kernels are kept on
disk by :mod:`symrmt.runtime.kernel_cache`.
"""
from __future__ import annotations

import ast
import inspect
import math
import textwrap
from typing import Callable

import numpy as np

from ..runtime import jit, kernel_cache

__all__ = ["kernel_source", "PointwiseKernel", "pointwise_kernel"]

#: The kernels' one signature: kernel(X, out), both C-contiguous float64 matrices.
_SIGNATURE = "void(float64[:, ::1], float64[:, ::1])"
#: NumPy's comparisons as SymPy prints them, and the Python operators they become.
_COMPARISONS = {"greater": ast.Gt, "greater_equal": ast.GtE, "less": ast.Lt, "less_equal": ast.LtE,
                "equal": ast.Eq, "not_equal": ast.NotEq}
#: Names the kernel defines itself (a function that uses one of them keeps its NumPy version).
_RESERVED = {"X", "out", "i", "max", "min", "abs", "sqrt", "nan", "pi"}
#: The nodes a statement may contain (anything else keeps the NumPy function).
_NODES = (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow,
          ast.USub, ast.UAdd, ast.Not, ast.Call, ast.Compare, ast.BoolOp, ast.IfExp)


class _Unsupported(Exception):
    """Something in the NumPy function that the kernel does not compute bit for bit."""


class _Scalar(ast.NodeTransformer):
    """The expressions of a generated NumPy function, rewritten for scalars with the same arithmetic.

    ``reduce(maximum, [a, b])`` becomes ``max(a, b)``; ``select([c, ...], [v, ...], default=nan)`` nested
    conditional expressions; ``greater_equal(a, b)`` and the other comparisons Python's; ``logical_and.reduce``
    and ``logical_or.reduce`` ``and``/``or``; ``absolute`` ``abs``. Anything else raises :class:`_Unsupported`.
    """

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def generic_visit(self, node):
        if not isinstance(node, _NODES):
            raise _Unsupported(type(node).__name__)
        return super().generic_visit(node)

    def visit_Name(self, node):
        if node.id not in self.names and node.id not in ("nan", "pi"):
            raise _Unsupported(node.id)
        return node

    def visit_Constant(self, node):
        if type(node.value) not in (int, float, bool):
            raise _Unsupported(repr(node.value))
        return node

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.Pow):
            return node
        exponent = _number(node.right)
        # NumPy's fast paths for an array to a scalar power: reciprocal, sqrt, square.
        if exponent == -1:
            return ast.BinOp(ast.Constant(1.0), ast.Div(), node.left)
        if exponent == 0.5:
            return ast.Call(ast.Name("sqrt", ast.Load()), [node.left], [])
        if exponent == 2:
            return ast.BinOp(node.left, ast.Mult(), node.left)
        raise _Unsupported("a power through pow")       # libm's pow is not NumPy's

    def visit_Call(self, node):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if isinstance(func, ast.Attribute) and func.attr == "reduce" and isinstance(func.value, ast.Name):
            operator = {"logical_and": ast.And, "logical_or": ast.Or}.get(func.value.id)
            if operator is None or len(node.args) != 1 or not isinstance(node.args[0], (ast.Tuple, ast.List)):
                raise _Unsupported("reduce")
            return ast.BoolOp(operator(), [self.visit(a) for a in node.args[0].elts])
        if node.keywords and name != "select":
            raise _Unsupported(name or "call")
        if (name == "reduce" and len(node.args) == 2 and isinstance(node.args[0], ast.Name)
                and node.args[0].id in ("maximum", "minimum") and isinstance(node.args[1], ast.List)):
            function = "max" if node.args[0].id == "maximum" else "min"
            items = [self.visit(a) for a in node.args[1].elts]
            expr = items[-1]
            for item in reversed(items[:-1]):
                expr = ast.Call(ast.Name(function, ast.Load()), [item, expr], [])
            return expr
        if name == "select" and len(node.args) == 2 and all(isinstance(a, ast.List) for a in node.args):
            if [k.arg for k in node.keywords] not in ([], ["default"]):
                raise _Unsupported("select")
            expr = self.visit(node.keywords[0].value) if node.keywords else ast.Name("nan", ast.Load())
            for condition, value in reversed(list(zip(node.args[0].elts, node.args[1].elts))):
                expr = ast.IfExp(self.visit(condition), self.visit(value), expr)
            return expr
        if name in _COMPARISONS and len(node.args) == 2:
            return ast.Compare(self.visit(node.args[0]), [_COMPARISONS[name]()], [self.visit(node.args[1])])
        if name in ("absolute", "abs", "sqrt") and len(node.args) == 1:
            return ast.Call(ast.Name("abs" if name != "sqrt" else "sqrt", ast.Load()), [self.visit(node.args[0])], [])
        raise _Unsupported(name or "call")


def _number(node) -> float | None:
    """The value of a numeric literal, signed (``-1.0`` parses as a negation of ``1.0``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _number(node.operand)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def kernel_source(function: Callable, name: str = "kernel") -> str | None:
    """The source of the kernel of a generated NumPy ``function``: ``kernel(X, out)``, one row of ``X`` per argument.

    Built from the function's own statements (:func:`inspect.getsource` of what :func:`sympy.lambdify` wrote),
    rewritten for scalars by :class:`_Scalar`; None when they contain anything it does not compile.
    """
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None
    definition = tree.body[0] if tree.body else None
    if (not isinstance(definition, ast.FunctionDef) or definition.args.vararg or definition.args.kwonlyargs
            or definition.args.defaults or not definition.body):
        return None
    arguments = [a.arg for a in definition.args.args]
    *statements, last = definition.body
    if not isinstance(last, ast.Return) or last.value is None or any(
            not isinstance(s, ast.Assign) or len(s.targets) != 1 or not isinstance(s.targets[0], ast.Name)
            for s in statements):
        return None
    assigned = [s.targets[0].id for s in statements]
    if (set(arguments) | set(assigned)) & _RESERVED:
        return None
    outputs = last.value.elts if isinstance(last.value, ast.List) else [last.value]
    names = set(arguments)
    transformer = _Scalar(names)
    body: list[ast.stmt] = [ast.parse(f"{a} = X[{k}, i]").body[0] for k, a in enumerate(arguments)]
    try:
        for statement, target in zip(statements, assigned):
            body.append(ast.Assign([ast.Name(target, ast.Store())], transformer.visit(statement.value)))
            names.add(target)
        for k, output in enumerate(outputs):
            body.append(ast.Assign([ast.parse(f"out[{k}, i]", mode="eval").body], transformer.visit(output)))
    except _Unsupported:
        return None
    for node in body:                               # the targets parsed above carry Load contexts
        for target in node.targets:
            target.ctx = ast.Store()
    loop = ast.For(ast.Name("i", ast.Store()), ast.parse("range(X.shape[1])", mode="eval").body, body, [])
    kernel = ast.parse(f"def {name}(X, out):\n    pass").body[0]
    kernel.body = [loop]
    return ast.unparse(ast.fix_missing_locations(ast.Module([kernel], []))) + "\n"


class PointwiseKernel:
    """A generated NumPy function compiled point by point: ``kernel(rows, N)`` -> the ``(outputs, N)`` array, or None.

    ``rows`` are the function's arguments, each an array of N points (or a scalar). None while
    :class:`symrmt.runtime.jit.Budget` says the NumPy function is still the better buy (the caller then evaluates that
    and records its time with :meth:`spend`), or when the function has something the kernel does not compute
    bit for bit. The source is written when the kernel is first compiled.
    """

    def __init__(self, function: Callable, outputs: int) -> None:
        self.function = function
        self.outputs = outputs
        self._source: str | None = None
        self._stored: bool | None = None
        self.budget = jit.Budget(self._compile, on_disk=self._on_disk)

    def _kernel_source(self) -> str | None:
        if self._source is None:
            self._source = kernel_source(self.function) or ""
        return self._source or None

    def _on_disk(self) -> bool:
        """Whether the kernel is in the disk cache (then it is loaded, not compiled; looked up once)."""
        if self._stored is None:
            source = self._kernel_source()
            self._stored = source is not None and kernel_cache.on_disk(source, _SIGNATURE)
        return self._stored

    def _compile(self) -> Callable:
        source = self._kernel_source()
        if source is None:
            raise TypeError("the generated function has something the kernel does not compute bit for bit")
        kernel = kernel_cache.cached_kernel(source, _SIGNATURE, lambda fn, sig: jit.njit(fn, sig, cache=True))
        if kernel is not None:
            return kernel
        namespace = {"sqrt": math.sqrt, "pi": math.pi, "nan": math.nan}
        exec(compile(source, "<symrmt kernel>", "exec"), namespace)    # noqa: S102 - lambdify's statements, rewritten
        return jit.njit(namespace["kernel"], _SIGNATURE)

    def spend(self, seconds: float) -> None:
        self.budget.spend(seconds)

    def machine_code(self) -> Callable | None:
        """The compiled ``kernel(X, out)`` itself, compiled now if it is not yet (for compiled code that calls it),
        or None where it cannot be."""
        return self.budget.compiled()

    def __call__(self, rows, size: int) -> np.ndarray | None:
        kernel = self.budget.native()
        if kernel is None:
            return None
        X = np.empty((len(rows), size))
        for k, row in enumerate(rows):
            X[k] = row
        out = np.empty((self.outputs, size))
        kernel(X, out)
        return out


def pointwise_kernel(function: Callable | None, outputs: int) -> PointwiseKernel | None:
    """The :class:`PointwiseKernel` of a generated NumPy function of ``outputs`` outputs (None without Numba)."""
    if function is None or not jit.installed():
        return None
    return PointwiseKernel(function, outputs)
