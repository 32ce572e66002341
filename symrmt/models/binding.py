r"""User arguments read into a system's parameter symbols: Hermite data, ratio, ridge, diagonal, geometry.

Every model of the attention matrix :math:`K` (attention, kernel ridge) takes exactly the parameters of
:func:`kernel_parameters`: :math:`c, \gamma, a_1, b, d` and the Gram entries of the geometry, keyed by the
symbols of :mod:`symrmt.derive.symbols`.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, NamedTuple, Union

import numpy as np

from ..errors import ParameterError, SymrmtInputError, shown
from ..geometry import Geometry, check_symmetric_kernel, gram_rank, resolve_gram
from ..nonlinearity import nonlinear_part
from ..validate import (DOMAINS, RANGE_HINT, inside, positive_array, positive_scalar, real_array, real_scalar,
                        within)

__all__ = ["Bound", "hermite_data", "hermite_arrays", "gram_parameters", "kernel_parameters", "ridge_parameters",
           "density_parameters", "attention_arguments", "centred_f", "MAX_ARGUMENT", "ArrayLike"]

ArrayLike = Union[float, np.ndarray, list]

#: The largest |x| and eta of a density: the spectra live on O(1 + c) scales, the density is below 1e-12 of its
#: bulk beyond, and the solver is checked there (it loses the start of its continuation only near 1e300).
MAX_ARGUMENT = 1e6


class Bound(NamedTuple):
    """A model's user arguments read into its parameter symbols: what :meth:`symrmt.models.Model.bind` checks.

    ``sources`` names the user's argument behind a symbol where it is not the symbol's own name (a Gram entry
    comes from ``gram``), for the messages of that check.
    """

    rank: int
    values: dict
    sources: dict


def hermite_data(f) -> tuple[Any, Any]:
    r"""``(a_1, nu)`` of a centered nonlinearity without parameters (string, SymPy expression,
    HermiteCoefficients), of a dict ``{"a1", "nu"}``, or a pair ``(a_1, nu)`` taken as it is.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, dict or tuple
        The nonlinearity (centred, without parameters), ``{"a1": ..., "nu": ...}``, or the pair ``(a_1, nu)``.

    Returns
    -------
    tuple
        :math:`(a_1, \nu)`, :math:`a_1 = \mathbb E[\xi f(\xi)]`, :math:`\nu = \mathbb E[f(\xi)^2]`.

    Raises
    ------
    SymrmtInputError
        A tuple that is not a pair, or a dict without ``a1`` and ``nu``.
    NonlinearityError
        An f that is not centred (:math:`a_0 \ne 0`) or cannot be read.

    See Also
    --------
    hermite_arrays : The arrays :math:`(a_1, b)`, for an f with parameters too.

    Examples
    --------
    >>> from symrmt.theory import hermite_data
    >>> [round(float(v), 6) for v in hermite_data("tanh(x)")], hermite_data((0.5, 1.0))
    ([0.605706, 0.394294], (0.5, 1.0))
    """
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
    from ..nonlinearity import HermiteCoefficients, hermite  # heavy: SymPy

    return f if isinstance(f, HermiteCoefficients) else hermite(f)


def centred_f(f):
    r"""``f`` itself, refused as the main path refuses it where it is not centred (:math:`a_0 \ne 0`).

    For the theories that take f itself rather than its Hermite data at unit scale (general M evaluates
    :math:`f(\sigma\,\cdot)`): a formula, a SymPy expression or HermiteCoefficients is checked by the one rule
    (:meth:`symrmt.nonlinearity.HermiteCoefficients.require_centered`); Hermite data given as numbers are refused.
    """
    if isinstance(f, (tuple, Mapping)):
        raise ParameterError(f"f = {shown(f)}: this theory evaluates f at the score scale, so give f itself (a "
                             "formula such as 'tanh(x)'), not its Hermite data.")
    if callable(f) and not hasattr(f, "free_symbols"):
        return f                                     # a Python function: its Hermite data come at the score scale
    _as_hermite(f).require_centered()
    return f


def attention_arguments(**values: Any) -> dict[str, np.ndarray]:
    r"""``c``, ``gamma`` and ``d`` (those given) read by the one reader and checked against
    :data:`symrmt.validate.DOMAINS`, the intervals the derivation states as their domains
    (:func:`symrmt.derive.symbols.domain`), by the check :func:`symrmt.solve.check_parameters` makes: the refusals of
    the main path, word for word, for the theories that solve something else at these arguments (general M, summed
    heads, softmax).

    Examples
    --------
    >>> from symrmt.models.binding import attention_arguments
    >>> attention_arguments(c=1.0, gamma=[0.1, 1.0])["gamma"].tolist()
    [0.1, 1.0]
    """
    readers: dict[str, Callable[[str, Any], np.ndarray]] = {"c": positive_array, "gamma": positive_array,
                                                            "d": real_array}
    return {name: inside(name, readers[name](name, value), DOMAINS[name], RANGE_HINT) for name, value in values.items()}


def gram_parameters(geometry: Geometry | None = None, gram: Any = None) -> tuple[int, dict]:
    r"""``(rank, {Gram entry symbol: array})`` of the geometry, from a Geometry, a dict of six entries or a Gram matrix.

    The geometry is checked by :func:`symrmt.geometry.resolve_gram` (the one owner of Gram
    matrices); a Gram matrix ``G`` of shape ``(..., 1 + 2r, 1 + 2r)`` is the Gram matrix of
    :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, whose leading dimensions broadcast with the
    other parameters. The keys are the attention system's parameter symbols
    (:func:`symrmt.derive.symbols.gram_positions`).

    Parameters
    ----------
    geometry : Geometry or dict, optional
        The geometry (default: :math:`\mu = 0`, unit key and query weights).
    gram : array_like, optional
        A Gram matrix of shape ``(..., 1 + 2r, 1 + 2r)`` instead of ``geometry``.

    Returns
    -------
    tuple
        ``(rank, {symbol: array})``: the rank r and the Gram entries keyed by the attention system's symbols.

    Raises
    ------
    ParameterError
        A geometry or Gram matrix that :func:`symrmt.geometry.resolve_gram` refuses.

    See Also
    --------
    symrmt.geometry.resolve_gram : The one reader of a geometry.

    Examples
    --------
    >>> import symrmt
    >>> from symrmt.theory import gram_parameters
    >>> rank, entries = gram_parameters(symrmt.Geometry(mu_norm=1.5))
    >>> rank, {str(k): float(v) for k, v in entries.items()}["theta"]      # theta = |mu|^2
    (1, 2.25)
    """
    matrix = resolve_gram(geometry, gram)
    rank = gram_rank(matrix)
    from ..derive.symbols import gram_positions  # heavy: SymPy

    return rank, {symbol: matrix[..., i, j] for symbol, (i, j) in gram_positions(rank).items()}


def hermite_arrays(f, params: Mapping | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""``(a_1, b)`` arrays of a centered f; an f with parameters is evaluated at ``params`` (arrays broadcast).

    :math:`b = \sqrt{\nu - a_1^2}` by the one rule of :func:`symrmt.nonlinearity.nonlinear_part`.
    """
    data = _as_hermite(f)
    names = [s.name for s in getattr(data, "parameters", ())]
    if names:
        from ..nonlinearity.parametric import named_values  # heavy: SymPy

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
    return a1, nonlinear_part(a1, nu)


def kernel_parameters(f, c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, d: ArrayLike = 0.0,
                      gram: Any = None, params: Mapping[str, ArrayLike] | None = None) -> Bound:
    r"""The parameters of a model of the attention matrix :math:`K`, bound by symbol (not yet range-checked).

    :math:`c, \gamma, a_1, b, d` and the Gram entries of the geometry (:func:`gram_parameters`), keyed by
    the symbols of :mod:`symrmt.derive.symbols`; arguments as in :func:`symrmt.theory.solve_attention`. Every
    system built on :math:`K` (attention, kernel ridge) takes exactly these. Their ranges are the domains of
    the system (:meth:`symrmt.models.Model.bind` checks them, once).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients, dict or tuple
        The centred nonlinearity, or its Hermite data (:func:`hermite_data`).
    c, gamma : array_like
        :math:`p/n` and the ridge parameter (> 0), broadcast with the other arrays.
    geometry : Geometry or dict, optional
        The geometry; or ``gram``, its Gram matrix.
    d : array_like
        The diagonal of K.
    gram : array_like, optional
        A Gram matrix instead of ``geometry``.
    params : dict, optional
        Values of f's parameters (arrays broadcast).

    Returns
    -------
    Bound
        The rank, ``{symbol: array}`` and where each symbol came from (for the one-line refusals).

    Raises
    ------
    ParameterError
        c or gamma not positive, d not real, or a geometry refused; a malformed f (as :func:`hermite_data`).

    See Also
    --------
    symrmt.models.Model.bind : Checks the bound values against the system's domains, once.

    Examples
    --------
    >>> from symrmt.theory import kernel_parameters
    >>> bound = kernel_parameters("tanh(x)", c=1.0, gamma=[0.1, 1.0])
    >>> bound.rank, sorted(str(k) for k in bound.values)[:4]
    (1, ['a_1', 'alpha_K', 'alpha_Q', 'b'])
    """
    from ..derive import symbols as S  # heavy: SymPy

    a1, b = hermite_arrays(f, params)
    rank, geometry_params = gram_parameters(geometry, gram)
    values = {S.c: positive_array("c", c), S.gamma: positive_array("gamma", gamma), S.a1: a1, S.b: b,
              S.d: real_array("d", d), **geometry_params}
    hermite = ", ".join(params) if params else "a_1, nu"
    where = "gram" if gram is not None else "geometry"
    return Bound(rank, values, {S.a1: hermite, S.b: hermite, **{k: where for k in geometry_params}})


def ridge_parameters(c: ArrayLike, gamma: ArrayLike, geometry: Geometry | None = None, gram: Any = None) -> Bound:
    r"""The parameters of linear (ridge) regression: :math:`c, \gamma` and :math:`\theta = \|\mu\|^2`."""
    from ..derive import symbols as S  # heavy: SymPy

    rank, geometry_params = gram_parameters(geometry, gram)
    values = {S.c: positive_array("c", c), S.gamma: positive_array("gamma", gamma), S.theta: geometry_params[S.theta]}
    return Bound(rank, values, {S.theta: "gram" if gram is not None else "geometry"})


def density_parameters(f, c: float, x: Any, eta: float = 0.0, d: float = 0.0, geometry: Geometry | None = None,
                       gram: Any = None, params: Mapping[str, float] | None = None, matrix: str = "gram") -> Bound:
    r"""The parameters of an eigenvalue density: one f, one :math:`c` and :math:`d`, the points :math:`x + i\eta`.

    :math:`|x|` and :math:`\eta` are at most :data:`MAX_ARGUMENT`; the geometry enters only as a check: the
    low-rank part moves :math:`O(1)` outlying eigenvalues, not the bulk, but the density of :math:`K`
    (``matrix="kernel"``) needs weights that keep :math:`K` symmetric.
    """
    from ..derive import symbols as S  # heavy: SymPy

    a1, b = hermite_arrays(f, params)
    if a1.ndim or b.ndim:
        given = ", ".join(f"{k} {np.shape(v)}" for k, v in (params or {}).items()) or "a_1 and nu"
        raise ParameterError(f"spectral_density takes one nonlinearity at a time: one value per parameter "
                             f"(got the shapes {given}); loop over the values.")
    c, d = positive_scalar("c", c), real_scalar("d", d)
    eta = within("eta", real_scalar("eta", eta), 0.0, MAX_ARGUMENT, "(the distance to the real axis)")
    x = within("x", _points(x), -MAX_ARGUMENT, MAX_ARGUMENT, RANGE_HINT)
    G = resolve_gram(geometry, gram)
    if matrix == "kernel":
        check_symmetric_kernel(G)
    return Bound(1, {S.c: c, S.a1: float(a1), S.b: float(b), S.d: d, S.x: x, S.eta: eta}, {})


def _points(x: Any) -> np.ndarray:
    """``x`` as a 1-d array of real numbers (a number gives one point)."""
    x = np.atleast_1d(real_array("x", x))
    if x.ndim != 1:
        raise ParameterError(f"x has shape {x.shape}: give a number or a 1-d list of numbers.")
    return x
