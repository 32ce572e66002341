r"""The disk cache of what :func:`~symrmt.nonlinearity.hermite` finds for an f with parameters: checked JSON, never pickle.

Building ``hermite("T*softplus(x/T)")`` looks for closed forms in the parameters (SymPy's
integration under a CPU budget for each datum) and checks them at two probe points by a
30-digit quadrature: tens of seconds on a loaded machine, in every new process. An entry
keeps the result, the closed form of each datum (``srepr``) or null and its source, in the
folder of the Hermite cache (:func:`symrmt.nonlinearity.cache.cache_folder`, ``parametric-*.json``),
one file per (expression, ``method``, ``timeout``, SymPy, mpmath and symrmt versions), with a
SHA-256 checksum.

What is checked on load
-----------------------
The checksum, format and versions, that the stored expression and options are exactly the
requested ones, that each closed form is read back without eval
(:mod:`symrmt.nonlinearity.serial`) and is an expression in the parameters only, and that it
agrees to :math:`10^{-9}` of the scale :math:`\max(|a_k|, \sqrt\nu)` with an independent
estimate of f itself at two probe points: the float64 rules of :mod:`.gauss_hermite` where
their error estimate accepts the point, else the 30-digit quadrature there. An entry that
fails is deleted with a :class:`~symrmt.nonlinearity.cache.CacheWarning` and rebuilt; a datum
stored as ``numeric`` claims nothing and needs no check. Centering is not stored: it is applied
to the loaded closed forms as to fresh ones.
"""
from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Sequence

import numpy as np
import sympy as sp

from ..errors import printable
from . import cache
from .constants import KEYS, X
from .gauss_hermite import gauss_hermite_data
from .serial import from_srepr, to_srepr
from .tanh_sinh import numeric_coefficients

__all__ = ["load", "store", "entry_path", "searched"]

FORMAT = 1
_ESTIMATE_RTOL = 1e-9   # as the Hermite cache: 100x the accuracy of the estimate
#: The probe points of the check on load (any two points where f is usable; away from 0 and 1).
_PROBES = ((0.71, 0.13), (1.37, 0.17), (0.43, 0.11))


def _request(expr: sp.Expr, method: str, timeout: float | None) -> dict[str, Any]:
    return {"f": to_srepr(expr), "method": method, "timeout": None if timeout is None else float(timeout),
            "kind": "parametric"}


def entry_path(expr: sp.Expr, method: str, timeout: float | None):
    """Where the entry of the request is (or would be) written; None when the cache is off."""
    folder = cache._usable_folder()
    return None if folder is None else _path(folder, _request(expr, method, timeout))


def searched(expr: sp.Expr, method: str, timeout: float | None) -> float:
    """The wall-clock seconds SymPy's search had when the stored entry was made (:func:`.cache.searched`)."""
    path = entry_path(expr, method, timeout)
    return 0.0 if path is None else cache.searched_in(path)


def _path(folder, request: dict[str, Any]):
    tag = json.dumps({"format": FORMAT, **cache._versions(), **request}, sort_keys=True)
    return folder / ("parametric-" + hashlib.sha256(tag.encode()).hexdigest()[:32] + ".json")


def store(expr: sp.Expr, method: str, timeout: float | None, exact: dict, source: dict,
          searched: float = cache.FALLBACK_SEARCHED) -> None:
    """Write the closed forms found for f (before centering), atomically; skipped when the cache is off.

    ``searched``: the wall-clock seconds SymPy's search had (as in :func:`.cache.store`)."""
    folder = cache._usable_folder()
    if folder is None:
        return
    body = {"format": FORMAT, **cache._versions(), "searched": float(searched), "request": _request(expr, method, timeout),
            "result": {k: {"exact": None if exact[k] is None else to_srepr(exact[k]), "source": source[k]}
                       for k in KEYS}}
    cache._atomic_write(_path(folder, body["request"]), json.dumps({**body, "checksum": cache._checksum(body)},
                                                                   indent=1, allow_nan=False))


def load(expr: sp.Expr, symbols: Sequence[sp.Symbol], method: str, timeout: float | None) -> tuple[dict, dict] | None:
    """``(exact, source)`` as given to :func:`store`, or None (no entry, cache off, or an entry that failed a check:
    deleted with a warning)."""
    folder = cache._usable_folder()
    if folder is None:
        return None
    request = _request(expr, method, timeout)
    path = _path(folder, request)
    try:
        entry = cache.read_entry(path)
        if entry is None:
            return None
        return _checked(entry, request, expr, tuple(symbols))
    except Exception as exc:  # noqa: BLE001 - whatever is wrong with an entry, it is not used
        reason = str(exc) if isinstance(exc, (cache._Invalid, ValueError, OSError)) else type(exc).__name__
        cache._warn(f"symrmt: discarded the Hermite cache entry {str(path)[:200]!r} ({printable(reason[:200])}); "
                    "recomputing")
        cache._unlink(path)
        return None


def _checked(entry: Any, request: dict, expr: sp.Expr, symbols: tuple) -> tuple[dict, dict]:
    if not isinstance(entry, dict) or not isinstance(entry.get("result"), dict):
        raise ValueError("not an entry of this cache")
    body = {k: v for k, v in entry.items() if k != "checksum"}
    if entry.get("checksum") != cache._checksum(body):
        raise ValueError("checksum mismatch")
    if entry.get("format") != FORMAT or any(entry.get(k) != v for k, v in cache._versions().items()):
        raise ValueError("written by another version")
    if entry.get("request") != request:
        raise ValueError("stored for another expression or other options")
    result = entry["result"]
    if set(result) != set(KEYS):
        raise ValueError("data missing")
    exact, source = {}, {}
    for key in KEYS:
        item = result[key]
        if not isinstance(item, dict) or item.get("source") not in cache._SOURCES:
            raise ValueError(f"{key}: malformed")
        form = None if item.get("exact") is None else from_srepr(item["exact"])
        if (form is None) != (item["source"] == "numeric"):
            raise ValueError(f"{key}: source {item['source']!r} does not match the closed form")
        if form is not None and (not isinstance(form, sp.Expr) or not form.free_symbols <= set(symbols)):
            raise ValueError(f"{key}: the closed form is not an expression in the parameters")
        exact[key], source[key] = form, item["source"]
    if any(v is not None for v in exact.values()):
        _verified(expr, symbols, exact)
    return exact, source


def _verified(expr: sp.Expr, symbols: tuple, exact: dict) -> None:
    """Each closed form agrees with an estimate of f itself at two probe points (see the module docstring)."""
    checked = 0
    for start, step in _PROBES:
        point = np.array([[start + i * step for i in range(len(symbols))]])
        values, accepted, _ = gauss_hermite_data(expr, symbols, point, center=False)
        at = {s: sp.Float(float(v), 30) for s, v in zip(symbols, point[0])}
        if accepted[0]:
            reference = {k: float(values[k][0]) for k in KEYS}
        else:
            fixed = expr.xreplace(at)
            if X not in fixed.free_symbols:
                continue
            try:
                reference = {k: float(v) for k, v in numeric_coefficients(fixed, KEYS, "cache check").items()}
            except Exception:  # noqa: BLE001 - f not usable at this probe: the next one
                continue
        for key, form in exact.items():
            if form is None:
                continue
            value = complex(form.xreplace(at).evalf(20))
            scale = max(abs(reference[key]), math.sqrt(abs(reference["nu"])))
            if abs(value.imag) > _ESTIMATE_RTOL * scale or not abs(value.real - reference[key]) <= _ESTIMATE_RTOL * scale:
                raise ValueError(f"{key}: the stored closed form gives {value.real:.15g} at {at}, f gives "
                                 f"{reference[key]:.15g}")
        checked += 1
        if checked == 2:
            return
    raise ValueError("f could not be checked at two probe points")
