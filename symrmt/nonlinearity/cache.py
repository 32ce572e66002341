r"""The disk cache of Hermite data: checked JSON files, never pickle.

Where
-----
``$SYMRMT_CACHE_DIR`` if set (``off`` or empty disables the cache), else
``$XDG_CACHE_HOME/symrmt``, else ``~/.cache/symrmt``; ``~`` is expanded. Entries live
in its ``hermite/`` folder, one file per (expression, ``center``, ``method``,
SymPy, mpmath and symrmt versions). A location that cannot be created or written
(read-only, a file in the way, a name too long) turns the cache off for the rest of
the process, with one :class:`CacheWarning`.

What an entry holds
-------------------
A JSON object with the format number, the versions, ``searched`` (the wall-clock seconds SymPy's search for
closed forms had: 0 for a first answer that did not wait, :data:`~.background.BUDGET` once the background search
wrote it, 600 when nothing was left to search; see :mod:`.background`), the request (the ``srepr`` of
the expression and the options), the result (each datum as a 40-digit decimal
string, its closed form as ``srepr`` or null, and its source; the constant that
centering subtracted), and a SHA-256 checksum of all of that.

What is checked on load
-----------------------
The checksum, the format and versions, that the stored expression and options are
exactly the requested ones, that every closed form is read back without eval
(:mod:`symrmt.nonlinearity.serial`) and agrees with its stored value, and that the
values are finite and consistent:

.. math::

    10^{-20} \le \nu \le 10^{300}, \qquad a_0^2 + a_1^2 + a_2^2 \le \nu \quad (\text{so } \nu \ge a_1^2
    \text{ and } |a_k| \le \sqrt\nu), \qquad \nu - a_0^2 > 10^{-24}\nu,

each up to a relative :math:`10^{-12}` (and :math:`|a_0| \le 10^{-12}\max(1, \sqrt\nu)` for a
centered entry). A cached value is a speed-up, never a source of truth: since a forger can
recompute a checksum, every value must also agree to :math:`10^{-9}` with an independent
estimate of f itself (tails checked in mpmath, then composite Gauss-Legendre of a scaled
integrand in float64 at two resolutions; see :func:`_verified_by_estimate`). Where that
estimate cannot judge (f overflows float64 on the nodes, cannot be compiled to NumPy, or
its two resolutions disagree) the entry is not used and the data are recomputed: overflow
never switches the check off. Anything that fails a check (a truncated, garbage, swapped
or tampered entry) is discarded with a :class:`CacheWarning` and rebuilt.

Entries are read only as regular files of at most 1 MB, without following a symbolic link and without
blocking on a pipe (:func:`symrmt.runtime.files.read_cache_file`). Writes are atomic
(:func:`symrmt.runtime.files.write_text_atomically`: a temporary file in the same folder, then
:func:`os.replace`), so two processes building the same f at once both leave a complete entry; whatever
has an entry's name (a link, dangling or not, a pipe) is replaced, never written through. Temporary
files left by a process that died are removed once they are an hour old.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import pathlib
import re
import tempfile
import time
import warnings
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from .. import __version__
from ..errors import NonlinearityError, printable
from ..runtime.cache_dir import cache_root
from ..runtime.files import read_cache_file, write_text_atomically
from .adapter import numpy_callable
from .callables import legendre_nodes
from .coefficients import agrees
from .constants import DPS, KEYS, NU_MAX, NU_SMALL
from .serial import from_srepr, to_srepr
from .tanh_sinh import Memo, kink_points, tail_check

__all__ = ["CacheWarning", "cache_folder", "load", "store", "entry_path", "searched"]

FORMAT = 2
_SOURCES = {"exact", "table", "numeric"}
_DIGITS = DPS + 10  # stored decimal digits (the values are 30-digit quadratures)
_MAX_BYTES = 1_000_000
_STALE_SECONDS = 3600.0  # a temporary file older than this belongs to a process that died
_CONSISTENCY_RTOL = 1e-12
_PANELS = (1600, 2000)  # the two resolutions of the independent estimate (panels on [-40, 40])
_JUDGE_RTOL = 1e-11     # the estimate judges only where its two resolutions agree to this (of the scale)
_ESTIMATE_RTOL = 1e-9   # a stored value must agree with the estimate to this (100x the judged accuracy)
_A0_TOL = 1e-12
_VARIANCE_RTOL = 1e-24  # as coefficients._check_scale: nu - a0^2 below this is a constant f
#: The ``searched`` of an entry written before entries said (the default wait of SymPy's search then).
FALLBACK_SEARCHED = 1.0
_NUMBER = re.compile(r"-?\d+(\.\d+)?(e[+-]?\d+)?")

#: Folders already found unusable in this process (each is warned about once).
_unusable: set[str] = set()


class CacheWarning(UserWarning):
    """The disk cache of Hermite data is unusable, or an entry in it was discarded.

    Examples
    --------
    >>> import warnings, symrmt
    >>> from symrmt.nonlinearity import CacheWarning
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", CacheWarning)         # e.g. a read-only cache folder, said once
    ...     round(symrmt.hermite("tanh(x)").a1, 6)
    0.605706
    """


def cache_folder() -> pathlib.Path | None:
    """The folder of the Hermite entries, or None when the cache is off.

    ``$SYMRMT_CACHE_DIR`` (``off`` or empty: None), else ``$XDG_CACHE_HOME/symrmt``
    (an absolute ``XDG_CACHE_HOME`` only, as the XDG specification says), else
    ``~/.cache/symrmt``; with ``hermite`` appended and ``~`` expanded.
    """
    root = cache_root()
    if root is None:
        return None
    return root / "hermite"


def _warn(message: str) -> None:
    warnings.warn(message, CacheWarning, stacklevel=4)


def _usable_folder() -> pathlib.Path | None:
    """The cache folder, created; None (after one warning per folder) when it cannot be used."""
    try:
        folder = cache_folder()
    except (RuntimeError, KeyError, OSError) as exc:   # no home directory to expand
        folder, reason = None, f"no home directory ({exc})"
        if "home" not in _unusable:
            _unusable.add("home")
            _warn(f"symrmt: the Hermite disk cache is off: {reason}; set SYMRMT_CACHE_DIR to a writable folder")
        return None
    if folder is None or str(folder) in _unusable:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe, name = tempfile.mkstemp(dir=folder, prefix=".probe.", suffix=".tmp")
        os.close(probe)
        os.unlink(name)
    except (OSError, ValueError) as exc:
        _unusable.add(str(folder))
        _warn(f"symrmt: the Hermite disk cache is off: cannot write to {str(folder)[:200]!r} "
              f"({type(exc).__name__}: {exc}); set SYMRMT_CACHE_DIR to a writable folder, or to 'off'")
        return None
    return folder


def _request(expr: sp.Expr, center: bool, method: str) -> dict[str, Any]:
    return {"f": to_srepr(expr), "center": bool(center), "method": method}


def _versions() -> dict[str, str]:
    return {"symrmt": __version__, "sympy": sp.__version__, "mpmath": mpmath.__version__}


def _path(folder: pathlib.Path, request: dict[str, Any]) -> pathlib.Path:
    tag = json.dumps({"format": FORMAT, **_versions(), **request}, sort_keys=True)
    return folder / (hashlib.sha256(tag.encode()).hexdigest()[:32] + ".json")


def _checksum(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# --------------------------------------------------------------------- store


def store(expr: sp.Expr, center: bool, method: str, result: tuple, searched: float = FALLBACK_SEARCHED) -> None:
    """Write ``result = (values, shift, centered_by)`` for the request, atomically; skipped when off.

    ``values`` maps each of ``a0, a1, a2, nu`` to ``(mpf value, closed form or None, source)``;
    ``shift`` is the constant centering subtracted (a SymPy number) or None, and
    ``centered_by`` its float value as reported (0.0 when None). ``searched``: the wall-clock seconds SymPy's
    search for the numeric data had (:func:`searched`).
    """
    folder = _usable_folder()
    if folder is None:
        return
    values, shift, centered_by = result
    body = {"format": FORMAT, **_versions(), "searched": float(searched),
            "request": _request(expr, center, method), "result": {
        "shift": None if shift is None else to_srepr(shift), "centered_by": float(centered_by),
        "values": {key: {"value": mpmath.nstr(value, _DIGITS, min_fixed=1, max_fixed=0, strip_zeros=False),
                         "exact": None if exact is None else to_srepr(exact), "source": source}
                   for key, (value, exact, source) in values.items()}}}
    text = json.dumps({**body, "checksum": _checksum(body)}, indent=1, allow_nan=False)
    _remove_stale(folder)
    _atomic_write(_path(folder, body["request"]), text)


def entry_path(expr: sp.Expr, center: bool, method: str) -> pathlib.Path | None:
    """Where the entry of the request is (or would be) written; None when the cache is off."""
    folder = _usable_folder()
    return None if folder is None else _path(folder, _request(expr, center, method))


def searched(expr: sp.Expr, center: bool, method: str) -> float:
    """The wall-clock seconds SymPy's search had when the stored entry was made (0 when none is stored).

    Only a hint (whether to search again, :mod:`.background`): the entry's data are checked by :func:`load`."""
    path = entry_path(expr, center, method)
    return 0.0 if path is None else searched_in(path)


def searched_in(path: pathlib.Path) -> float:
    """``searched`` of the entry at ``path``: a number in [0, 600], :data:`FALLBACK_SEARCHED` when it has none."""
    try:
        entry = read_entry(path)
    except Exception:  # noqa: BLE001 - an unreadable entry is the loader's concern; as a hint it says "not searched"
        return 0.0
    if not isinstance(entry, dict):
        return 0.0
    value = entry.get("searched", FALLBACK_SEARCHED)
    return float(value) if type(value) in (int, float) and 0 <= value <= 600 else 0.0


def _atomic_write(path: pathlib.Path, text: str) -> None:
    """:func:`symrmt.runtime.files.write_text_atomically`; a failure turns the cache off with a warning."""
    try:
        write_text_atomically(path, text, follow=False)      # a link or a pipe named as the entry is replaced
    except OSError as exc:
        _unusable.add(str(path.parent))
        _warn(f"symrmt: the Hermite disk cache is off: cannot write {str(path)[:200]!r} ({exc})")


def _remove_stale(folder: pathlib.Path) -> None:
    """Remove temporary files of writers that died (a live writer finishes within seconds)."""
    now = time.time()
    for leftover in folder.glob(".*.tmp"):
        try:
            if now - leftover.stat().st_mtime > _STALE_SECONDS:
                leftover.unlink()
        except OSError:
            pass


def _unlink(path: pathlib.Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


# ---------------------------------------------------------------------- load


class _Invalid(Exception):
    """An entry that must not be used; the message says why."""


class _Unjudged(Exception):
    """An entry the independent estimate cannot judge: it is not used, and the data are recomputed."""


def load(expr: sp.Expr, center: bool, method: str) -> tuple | None:
    """``(values, shift, centered_by)`` as given to :func:`store`, or None (no entry, cache off, or an entry
    that failed a check: it is deleted, with a :class:`CacheWarning`, and will be rebuilt)."""
    folder = _usable_folder()
    if folder is None:
        return None
    request = _request(expr, center, method)
    path = _path(folder, request)
    try:
        entry = read_entry(path)
        if entry is None:
            return None
        return _checked(entry, request, expr)
    except _Unjudged:           # maybe right, but unverifiable: recomputing (and storing again) costs only time
        return None
    except Exception as exc:  # noqa: BLE001 - whatever is wrong with an entry, it is not used
        reason = str(exc) if isinstance(exc, (_Invalid, ValueError, OSError)) else type(exc).__name__
        _warn(f"symrmt: discarded the Hermite cache entry {str(path)[:200]!r} ({printable(reason[:200])}); "
              "recomputing")
        _unlink(path)
        return None


def read_entry(path: pathlib.Path) -> Any:
    """The JSON of the entry at ``path``, or None when there is none: a regular file of at most 1 MB, never
    through a link or from a pipe (:func:`symrmt.runtime.files.read_cache_file`), without NaN or infinities."""
    data = read_cache_file(path, _MAX_BYTES)
    if data is None:
        return None
    return json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)


def _refuse_constant(name: str):
    raise _Invalid(f"non-finite number {name} in JSON")


def _checked(entry: Any, request: dict[str, Any], expr: sp.Expr) -> tuple:
    if not isinstance(entry, dict) or not isinstance(entry.get("result"), dict):
        raise _Invalid("not an entry of this cache")
    body = {k: v for k, v in entry.items() if k != "checksum"}
    if entry.get("checksum") != _checksum(body):
        raise _Invalid("checksum mismatch")
    if entry.get("format") != FORMAT or any(entry.get(k) != v for k, v in _versions().items()):
        raise _Invalid("written by another version")
    if entry.get("request") != request:
        raise _Invalid("stored for another expression or other options")
    result = entry["result"]
    shift = None if result.get("shift") is None else _expression(result["shift"], "shift")
    stored = result.get("values")
    if not isinstance(stored, dict) or set(stored) != set(KEYS):
        raise _Invalid("values missing")
    values = {key: _datum(key, stored[key]) for key in KEYS}
    centered_by = result.get("centered_by")
    if type(centered_by) is not float or not math.isfinite(centered_by):
        raise _Invalid("centered_by is not a finite number")
    _consistent(values, shift, centered_by, request["center"])
    _verified_by_estimate(expr if shift is None else expr - shift, values)
    return values, shift, centered_by


def _expression(text: Any, what: str) -> sp.Expr:
    try:
        value = from_srepr(text)
    except ValueError as exc:
        raise _Invalid(f"{what}: {exc}") from None
    if not isinstance(value, sp.Expr) or not value.is_number:
        raise _Invalid(f"{what} is not a number")
    return value


def _datum(key: str, item: Any) -> tuple:
    if not isinstance(item, dict) or item.get("source") not in _SOURCES or not isinstance(item.get("value"), str):
        raise _Invalid(f"{key}: malformed")
    if not _NUMBER.fullmatch(item["value"]):
        raise _Invalid(f"{key}: value {item['value'][:40]!r} is not a finite decimal number")
    with mpmath.workdps(_DIGITS):
        value = mpmath.mpf(item["value"])
    if not mpmath.isfinite(value) or abs(value) > 1e300:
        raise _Invalid(f"{key}: value out of range")
    exact = None if item.get("exact") is None else _expression(item["exact"], key)
    if (exact is None) != (item["source"] == "numeric"):
        raise _Invalid(f"{key}: source {item['source']!r} does not match the closed form")
    return value, exact, item["source"]


def _consistent(values: dict, shift: sp.Expr | None, centered_by: float, center: bool) -> None:
    nu = values["nu"][0]
    if not NU_SMALL <= nu <= NU_MAX:
        raise _Invalid(f"nu = {mpmath.nstr(nu, 6)} is outside [{NU_SMALL:g}, {NU_MAX:g}]")
    with mpmath.workdps(DPS):
        square_sum = sum(values[k][0] ** 2 for k in ("a0", "a1", "a2"))
        if square_sum > nu * (1 + _CONSISTENCY_RTOL):
            raise _Invalid("a0^2 + a1^2 + a2^2 > nu (so nu < a1^2 or some |a_k| > sqrt(nu))")
        if nu - values["a0"][0] ** 2 <= _VARIANCE_RTOL * nu:
            raise _Invalid("nu - a0^2 = 0: f would be constant, which hermite refuses")
        if center and abs(values["a0"][0]) > _A0_TOL * max(1, mpmath.sqrt(nu)):
            raise _Invalid("a0 is not 0 in an entry of a centered f")
        scale = mpmath.sqrt(nu)
        for key, (value, exact, _) in values.items():
            if exact is not None and not agrees(exact, value, max(abs(value), scale)):
                raise _Invalid(f"{key}: the closed form does not agree with the value")
    if shift is None:
        if centered_by != 0.0:
            raise _Invalid("centered_by without a shift")
        return
    if not center:
        raise _Invalid("centered although centering was not asked for")
    with mpmath.workdps(DPS):
        if not agrees(shift, mpmath.mpf(centered_by), max(abs(centered_by), 1e-300)):
            raise _Invalid("the shift does not agree with centered_by")


def _verified_by_estimate(expr: sp.Expr, values: dict) -> None:
    r"""The stored values against an independent estimate that overflow cannot switch off.

    A forged entry can carry a correct checksum and consistent numbers, so f itself is
    integrated again, cheaply and by other rules than the 30-digit tanh-sinh: the tails of
    f are checked in mpmath (no overflow) to die out at :math:`|x| = 40` and 80, as
    :func:`hermite` requires; then composite Gauss-Legendre on :math:`[-40, 40]`, split at
    the kinks, at two resolutions, integrates the scaled integrand
    :math:`g = f\,\sqrt{w\varphi}` (:math:`\nu = \sum g^2`, so :math:`f^2` is never formed).
    The stored values must agree with the finer estimate to :data:`_ESTIMATE_RTOL` of the
    estimate's scale. Where the estimate cannot judge (f not finite in float64 on the nodes,
    not compilable to NumPy, or the two resolutions differ: kinks that cannot be located,
    fast oscillations) the entry is not trusted either: :class:`_Unjudged` makes the caller
    recompute."""
    try:
        with mpmath.workdps(DPS):
            tail_check(Memo(expr, "f"))
    except NonlinearityError as exc:
        raise _Invalid(f"f is not usable, which hermite never stores ({str(exc)[:120]})") from None
    coarse, fine = (_estimate(expr, panels) for panels in _PANELS)
    scale = {key: fine["nu"] if key == "nu" else math.sqrt(fine["nu"]) for key in KEYS}
    for key in KEYS:
        if not abs(coarse[key] - fine[key]) <= _JUDGE_RTOL * scale[key]:
            raise _Unjudged(f"{key}: two float64 rules give {coarse[key]:.15g} and {fine[key]:.15g}")
        stored = float(values[key][0])
        if not abs(stored - fine[key]) <= _ESTIMATE_RTOL * scale[key]:
            raise _Invalid(f"{key} = {stored:.15g} disagrees with an independent estimate of {fine[key]:.15g}")


def _estimate(expr: sp.Expr, panels: int) -> dict[str, float]:
    """Gauss-Legendre estimates of a_0, a_1, a_2, nu on [-40, 40] with ``panels`` panels (plus the kinks)."""
    edges = np.union1d(np.linspace(-40.0, 40.0, panels + 1), [k for k in kink_points(expr) if abs(k) < 40])
    nodes, weights = legendre_nodes(edges)
    root = np.sqrt(weights) * np.exp(-nodes * nodes / 4) / (2 * math.pi) ** 0.25     # sqrt(w phi), no underflow
    try:
        with np.errstate(all="ignore"):
            g = numpy_callable(expr)(nodes) * root
    except Exception as exc:  # noqa: BLE001 - f not compilable or not evaluable in NumPy: no estimate
        raise _Unjudged(f"f cannot be evaluated in NumPy ({type(exc).__name__})") from None
    if not np.all(np.isfinite(g)):
        raise _Unjudged("f is not finite in float64 on the quadrature nodes")
    return {"a0": float(g @ root), "a1": float((g * nodes) @ root),
            "a2": float((g * (nodes * nodes - 1)) @ root) / math.sqrt(2), "nu": float(g @ g)}
