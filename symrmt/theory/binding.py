r"""Binding user arguments to a system's parameter symbols: Hermite data, ratio, ridge, diagonal, geometry.

Every model of the attention matrix :math:`K` (attention, kernel ridge) takes exactly the parameters of
:func:`kernel_parameters`: :math:`c, \gamma, a_1, b, d` and the Gram entries of the geometry, keyed by the
symbols of :mod:`symrmt.derive.symbols`.
"""
from __future__ import annotations

from typing import Any, Mapping, Union

import numpy as np

from ..errors import ParameterError, SymrmtInputError
from ..geometry import Geometry, gram_rank, resolve_gram
from ..validate import C_RANGE, MAX_DIAGONAL, MAX_GAMMA, RANGE_HINT, positive_array, real_array, within

__all__ = ["hermite_data", "gram_parameters", "kernel_parameters", "ArrayLike"]

ArrayLike = Union[float, np.ndarray, list]


def hermite_data(f) -> tuple[Any, Any]:
    """``(a_1, nu)`` of a centered nonlinearity without parameters (string, SymPy expression,
    HermiteCoefficients), of a dict ``{"a1", "nu"}``, or a pair ``(a_1, nu)`` taken as it is."""
    if isinstance(f, tuple):
        if len(f) != 2:
            raise SymrmtInputError(f"f = {f!r}: a tuple must be the Hermite pair (a_1, nu).")
        return f
    if isinstance(f, Mapping):
        missing = [k for k in ("a1", "nu") if k not in f]
        if missing:
            raise SymrmtInputError(f"f = {f!r}: a dict of Hermite data needs the keys 'a1' and 'nu' "
                                   f"(missing {missing}).")
        return f["a1"], f["nu"]
    data = _as_hermite(f)
    data.require_centered()
    return data.a1, data.nu


def _as_hermite(f):
    """f's :class:`~symrmt.nonlinearity.HermiteCoefficients`, or None for Hermite data given as numbers."""
    if isinstance(f, (tuple, Mapping)):
        return None
    from ..nonlinearity import HermiteCoefficients, hermite

    return f if isinstance(f, HermiteCoefficients) else hermite(f)


def _ratio(c: ArrayLike) -> np.ndarray:
    """``c`` read as the ratio p/n: positive and in :data:`~symrmt.validate.C_RANGE`."""
    return within("c", positive_array("c", c), *C_RANGE, RANGE_HINT)


def _ridge(gamma: ArrayLike) -> np.ndarray:
    """``gamma`` read as the ridge: positive and at most :data:`~symrmt.validate.MAX_GAMMA`."""
    return within("gamma", positive_array("gamma", gamma), 0.0, MAX_GAMMA, RANGE_HINT)


def _diagonal(d: ArrayLike) -> np.ndarray:
    """``d`` read as the diagonal K_ii: real, |d| at most :data:`~symrmt.validate.MAX_DIAGONAL`."""
    return within("d", real_array("d", d), -MAX_DIAGONAL, MAX_DIAGONAL, RANGE_HINT)


def gram_parameters(geometry: Geometry | None = None, gram: Any = None) -> tuple[int, dict]:
    r"""``(rank, {Gram entry symbol: array})`` of the geometry, from a Geometry, a dict of six entries or a Gram matrix.

    The geometry is checked by :func:`symrmt.geometry.resolve_gram` (the one owner of Gram
    matrices); a Gram matrix ``G`` of shape ``(..., 1 + 2r, 1 + 2r)`` is the Gram matrix of
    :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, whose leading dimensions broadcast with the
    other parameters. The keys are the attention system's parameter symbols
    (:func:`symrmt.derive.symbols.gram_positions`).
    """
    matrix = resolve_gram(geometry, gram)
    rank = gram_rank(matrix)
    from ..derive.symbols import gram_positions  # lazy: SymPy only when a system is solved

    return rank, {symbol: matrix[..., i, j] for symbol, (i, j) in gram_positions(rank).items()}


def _hermite_arrays(f, params: Mapping | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(a_1, b)`` arrays of a centered f; an f with parameters is evaluated at ``params`` (arrays broadcast)."""
    data = _as_hermite(f)
    names = [s.name for s in getattr(data, "parameters", ())]
    if names:
        from ..nonlinearity.parametric import named_values

        values = named_values(params, names, data.f)
        out = data.numeric(**values)
        data.require_centered(out, values)
        a1, nu = real_array("a_1", out["a1"]), real_array("nu", out["nu"])
    else:
        if params:
            raise ParameterError(f"params = {params!r}: f = {getattr(data, 'f', f)!r} has no parameters; "
                                 "leave params out.")
        a1, nu = hermite_data(f if data is None else data)
        a1, nu = real_array("a_1", a1), real_array("nu", nu)
    b2 = nu - a1**2
    if np.any(b2 < -1e-12 * np.maximum(1, nu)):
        raise SymrmtInputError("need nu >= a_1^2 (nu = E f^2 bounds a_1 = E[xi f] by Cauchy-Schwarz).")
    return a1, np.sqrt(np.clip(b2, 0, None))


def _check_broadcast(shapes: Mapping[str, tuple]) -> None:
    """Name every input when the shapes do not broadcast (the solver only knows its own symbols)."""
    try:
        np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ParameterError(f"the shapes of {listed} do not broadcast together (NumPy rules): give arrays "
                             "whose shapes broadcast, e.g. one axis per swept input.") from None



def kernel_parameters(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                      gram: Any = None, params: Mapping[str, ArrayLike] | None = None) -> tuple[int, dict]:
    r"""``(rank, {symbol: array})``: the parameters of a model of the attention matrix :math:`K`, bound by symbol.

    :math:`c, \gamma, a_1, b, d` and the Gram entries of the geometry (:func:`gram_parameters`), keyed by
    the symbols of :mod:`symrmt.derive.symbols`; arguments as in :func:`solve_attention`. Every system
    built on :math:`K` (attention, kernel ridge) takes exactly these.
    """
    from ..derive import symbols as S

    a1, b = _hermite_arrays(f, params)
    rank, geometry_params = gram_parameters(geometry, gram)
    values = {S.c: _ratio(c), S.gamma: _ridge(gamma), S.a1: a1, S.b: b, S.d: _diagonal(d), **geometry_params}
    hermite_shapes = {str(k): np.shape(v) for k, v in params.items()} if params else {"a_1, nu": a1.shape}
    _check_broadcast({"c": values[S.c].shape, "gamma": values[S.gamma].shape, "d": values[S.d].shape,
                      **hermite_shapes, ("gram" if gram is not None else "geometry"): values[S.theta].shape})
    return rank, values


