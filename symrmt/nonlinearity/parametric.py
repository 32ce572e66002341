r"""f with symbolic parameters: Hermite data as expressions in the parameters where a closed
form is known, and a vectorized numeric evaluation everywhere.

For :math:`f(x; s)`, e.g. :math:`\operatorname{erf}(s x)`, each of :math:`a_0, a_1, a_2, \nu`
is looked for in closed form, in this order: Gaussian moments (f polynomial in x),
the table (:math:`c\operatorname{erf}(kx) + d` with c, k, d expressions in the
parameters: :math:`a_1 = 2ck/\sqrt{\pi(1 + 2k^2)}`,
:math:`\nu = c^2\tfrac{2}{\pi}\arcsin\tfrac{2k^2}{1 + 2k^2} + d^2`), structural parity
(:math:`f(-x) = \pm f(x)` after expansion), and SymPy's integration under the CPU
budget. A closed form is kept only if it agrees to :math:`10^{-12}` with the verified
30-digit quadrature at two probe points of the parameters; any other datum is
flagged ``"numeric"`` and :meth:`HermiteCoefficients.numeric` computes it per point.

Centering may depend on the parameters: with ``center=True`` a closed-form
:math:`a_0(s)` is subtracted from f symbolically; otherwise each point is centered
numerically.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import mpmath
import numpy as np
import sympy as sp

from symrmt.codegen import numpy_function
from symrmt.errors import NonlinearityError, ParameterError

from .closed_forms import _polynomial_exact, _symbolic, _table_exact
from .coefficients import _A0_TOL, _agrees
from .constants import DPS, KEYS, X
from .parse import parse_nonlinearity
from .tanh_sinh import _numeric

__all__ = ["ParametricData", "parametric_hermite", "evaluate"]


def _probes(symbols: Sequence[sp.Symbol]) -> list[dict[sp.Symbol, sp.Rational]]:
    """Two points of the parameters, away from 0 and 1 (where forms often degenerate)."""
    return [{s: sp.Rational(7, 10) + sp.Rational(13 * i, 100) for i, s in enumerate(symbols)},
            {s: sp.Rational(13, 10) + sp.Rational(17 * i, 100) for i, s in enumerate(symbols)}]


@dataclass(frozen=True)
class ParametricData:
    """What :func:`hermite` knows of an f with parameters: closed forms in them, and how to center per point."""

    f: sp.Expr
    exact: dict
    source: dict
    parameters: tuple[sp.Symbol, ...]
    center: bool


def parametric_hermite(f: Any, parameters: Sequence[str] | None, center: bool, method: str,
                       timeout: float) -> ParametricData:
    """The Hermite data of an f with parameters (see the module docstring); :func:`hermite` wraps them."""
    if parameters is None:     # a SymPy expression: every symbol other than x is a parameter
        parameters = sorted(str(s) for s in f.free_symbols if getattr(s, "name", None) != "x")
    expr = parse_nonlinearity(f, parameters)
    symbols = tuple(sorted(expr.free_symbols - {X}, key=lambda s: parameters.index(s.name)))
    label = repr(str(expr)[:80])
    probes = _probes(symbols)
    references = [_numeric(expr.xreplace(p), KEYS, f"{label} at {_point(p)}") for p in probes]
    exact, source = _closed_forms(expr, method, timeout, probes, references)
    expr, exact, source, per_point = _centered(expr, exact, source, center, probes, references, label)
    return ParametricData(expr, exact, source, symbols, per_point)


def _point(values: Mapping) -> str:
    return ", ".join(f"{getattr(s, 'name', s)} = {float(v):.6g}" for s, v in values.items())


def _closed_forms(expr, method, timeout, probes, references):
    exact, source = {k: None for k in KEYS}, {k: "numeric" for k in KEYS}
    if method != "auto":
        return exact, source
    table, no_closed_form = _table_exact(expr, KEYS, numbers_only=False)
    candidates = [(_polynomial_exact(expr, KEYS), "exact"), (table, "table"), (_parity(expr), "exact")]
    known = set().union(*(c for c, _ in candidates)) | no_closed_form
    symbolic_keys = sorted(set(KEYS) - known, key=lambda k: (k != "nu", k))
    if symbolic_keys:
        candidates.append((_symbolic(expr, symbolic_keys, timeout), "exact"))
    for key in KEYS:
        for found, kind in candidates:
            if key in found and _agrees_at_probes(found[key], key, probes, references):
                exact[key], source[key] = found[key], kind
                break
    return exact, source


def _parity(expr: sp.Expr) -> dict[str, sp.Expr]:
    """Zeros and a_0 implied by f(x) + f(-x) = 2c or f(x) = f(-x), seen after expansion."""
    mirrored, out = expr.xreplace({X: -X}), {}
    both = sp.expand(expr + mirrored)
    if X not in both.free_symbols:
        out.update({"a0": both / 2, "a2": sp.S.Zero})
    if sp.expand(expr - mirrored) == 0:
        out.update({"a1": sp.S.Zero})
    return out


def _agrees_at_probes(value: sp.Expr, key: str, probes, references) -> bool:
    if not isinstance(value, sp.Expr) or value.free_symbols - set(probes[0]):
        return False
    for probe, ref in zip(probes, references):
        scale = max(abs(ref[key]), mpmath.sqrt(abs(ref["nu"])))
        if not _agrees(value.xreplace(probe), ref[key], scale):
            return False
    return True


def _centered(expr, exact, source, center, probes, references, label):
    """``(f, exact, source, numeric per-point centering?)`` after the centering asked for."""
    with mpmath.workdps(DPS):
        uncentered = [p for p, ref in zip(probes, references)
                      if abs(ref["a0"]) > _A0_TOL * max(1, mpmath.sqrt(ref["nu"]))]
    if not center:
        if uncentered or (exact["a0"] is not None and exact["a0"] != 0):
            where = _point(uncentered[0]) if uncentered else "some parameter values"
            raise NonlinearityError(
                f"nonlinearity {label} is not centered at {where} (a0 = E f(xi) = {exact['a0'] or 'nonzero'}), and "
                "the theory needs a0 = 0. Pass center=True to subtract a0 (it may depend on the parameters)"
            )
        return expr, exact, source, False
    shift = exact["a0"]
    if shift is None:                       # centering per point, numerically: nu changes too
        return expr, {**exact, "nu": None}, {**source, "a0": "numeric", "nu": "numeric"}, True
    if shift == 0:
        return expr, exact, source, False
    nu = None if exact["nu"] is None else exact["nu"] - shift**2
    return (expr - shift, {**exact, "a0": sp.S.Zero, "nu": nu},
            {**source, "nu": source["nu"] if nu is not None else "numeric"}, False)


# ------------------------------------------------------------------- evaluation


def evaluate(h, params: Mapping[str, Any], at_point: Callable[[sp.Expr, bool], Any]) -> dict[str, np.ndarray]:
    """The body of :meth:`HermiteCoefficients.numeric` (its docstring is the contract).

    ``at_point(f, center)`` gives the numeric Hermite data of f at one point of the parameters
    (attributes ``a0, a1, a2, nu``), for the data without a closed form.
    """
    names = [s.name for s in h.parameters]
    missing, extra = [n for n in names if n not in params], sorted(set(params) - set(names))
    if missing or extra:
        raise ParameterError(
            f"numeric() takes the parameters {names or 'none'} of f = {h.f}: "
            + (f"missing {missing}" if missing else "") + ("; " if missing and extra else "")
            + (f"unknown {extra}" if extra else "")
        )
    arrays = _broadcast([_real_array(name, params[name]) for name in names])
    shape = arrays[0].shape if arrays else ()
    if not h.parameters:
        return {k: np.full(shape, float(getattr(h, k))) for k in KEYS}
    out = {}
    for key in KEYS:
        if h.exact[key] is not None:
            out[key] = _compiled(h, key, arrays, shape)
    numeric = [k for k in KEYS if k not in out]
    if numeric:
        out.update(_per_point(h, numeric, arrays, shape, at_point))
    return {k: out[k] for k in KEYS}


def _real_array(name: str, value: Any) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:      # ragged lists
        raise ParameterError(f"parameter {name} = {value!r}: not an array of numbers ({exc})") from None
    if arr.dtype.kind not in "biuf":
        raise ParameterError(f"parameter {name} = {value!r}: must be real numbers (dtype {arr.dtype})")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ParameterError(f"parameter {name}: every value must be finite, got {value!r}")
    return arr


def _broadcast(arrays: list[np.ndarray]) -> list[np.ndarray]:
    try:
        return list(np.broadcast_arrays(*arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ParameterError(f"parameter arrays of shapes {shapes} do not broadcast together") from None


def _compiled(h, key: str, arrays: list[np.ndarray], shape: tuple) -> np.ndarray:
    fn = numpy_function(h.exact[key], list(h.parameters), name=key)
    with np.errstate(all="ignore"):
        raw = np.asarray(fn(*arrays))
    if raw.dtype.kind == "c":
        raw = np.where(np.abs(raw.imag) <= 1e-12 * (1 + np.abs(raw.real)), raw.real, np.nan)
    values = np.broadcast_to(raw.astype(np.float64), shape).copy()
    bad = ~np.isfinite(values)
    if np.any(bad):
        point = {s.name: a[bad][0] for s, a in zip(h.parameters, arrays)}
        raise NonlinearityError(f"{key} = {h.exact[key]} of f = {h.f} is not finite at {_point(point)}")
    return values


def _per_point(h, keys: list[str], arrays: list[np.ndarray], shape: tuple, at_point) -> dict[str, np.ndarray]:
    points = np.stack([a.ravel() for a in arrays], axis=1)
    unique, inverse = np.unique(points, axis=0, return_inverse=True)
    table = np.empty((len(unique), len(keys)))
    for i, point in enumerate(unique):
        at = {s: sp.Float(float(v), DPS) for s, v in zip(h.parameters, point)}
        try:
            value = at_point(h.f.xreplace(at), h.center)
        except NonlinearityError as exc:
            raise NonlinearityError(f"at {_point(at)}: {exc}") from None
        table[i] = [getattr(value, k) for k in keys]
    return {k: table[np.ravel(inverse), j].reshape(shape) for j, k in enumerate(keys)}
