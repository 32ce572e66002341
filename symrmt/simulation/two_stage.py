r"""LAPACK's two-stage tridiagonal reduction ``dsytrd_2stage``, which :mod:`scipy.linalg.lapack` does not wrap.

``dsytrd`` spends half its flops in level-2 products (one pass over the trailing matrix per
column: memory-bound). ``dsytrd_2stage`` first reduces the matrix to a band of width
:math:`b` with level-3 products only, then chases the band to tridiagonal form in
:math:`O(n^2 b)` work on the band alone; at n = 2048 it took 0.35 s on one BLAS thread
where ``dsytrd`` took 0.69 s (docs/performance.md). Both apply orthogonal transformations
that leave :math:`e_1` fixed (in the lower storage, every reflector of either stage acts
on rows 2..n), so the tridiagonal route's identity
:math:`y^\top (G+\gamma)^{-2} y = \|y\|^2 \|(T+\gamma)^{-1} e_1\|^2` holds for either
:math:`T`, and both are backward stable (the route's rounding bound applies unchanged).

The routine (LAPACK 3.7 and later) is looked up by name, with ``ctypes``, in the LAPACK that
SciPy links (SciPy's OpenBLAS exports it as ``scipy_dsytrd_2stage_``, a plain LAPACK as
``dsytrd_2stage_``). Where it is not found, :func:`tridiagonalize` returns ``None`` and the
caller uses ``dsytrd``.
"""
from __future__ import annotations

import ctypes
import functools

import numpy as np

from scipy.linalg import lapack

__all__ = ["available", "tridiagonalize"]

# (symbol, integer type): SciPy's OpenBLAS, a plain LAPACK, then the ILP64 builds of either.
_SYMBOLS = (("scipy_dsytrd_2stage_", ctypes.c_int32), ("dsytrd_2stage_", ctypes.c_int32),
            ("scipy_dsytrd_2stage_64_", ctypes.c_int64), ("dsytrd_2stage_64_", ctypes.c_int64))


@functools.lru_cache(maxsize=1)
def _routine() -> tuple[object, type] | None:
    """``(function, integer type)`` of ``dsytrd_2stage`` in the LAPACK that SciPy's own wrappers call.

    ``dlsym`` on SciPy's LAPACK extension module searches the libraries it links, so this finds
    the same LAPACK as :func:`scipy.linalg.lapack.dsytrd` (whatever its file name).
    """
    try:
        library = ctypes.CDLL(lapack._flapack.__file__)
    except (AttributeError, OSError):  # pragma: no cover - an unusual SciPy build
        return None
    for symbol, integer in _SYMBOLS:
        function = getattr(library, symbol, None)
        if function is not None:
            function.restype = None
            return function, integer
    return None  # pragma: no cover - a LAPACK older than 3.7


def available() -> bool:
    """Whether a ``dsytrd_2stage`` was found (else the tridiagonal route uses ``dsytrd``)."""
    return _routine() is not None


def tridiagonalize(a: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Diagonal and subdiagonal of the tridiagonal form of the lower triangle of ``a`` (overwritten).

    ``a`` is an m-by-m Fortran-contiguous float64 array. Returns ``None`` when no
    ``dsytrd_2stage`` is loaded. Runs on the BLAS threads in force (the band chase is serial).
    """
    found = _routine()
    if found is None:
        return None
    function, integer = found
    m = a.shape[0]
    diag, off, tau = np.empty(m), np.empty(max(m - 1, 1)), np.empty(max(m - 1, 1))
    query = np.empty(1), np.empty(1)
    _call(function, integer, a, diag, off, tau, query[0], -1, query[1], -1)
    hous, work = np.empty(max(int(query[0][0]), 1)), np.empty(max(int(query[1][0]), 1))
    _call(function, integer, a, diag, off, tau, hous, hous.size, work, work.size)
    return diag, off[: m - 1]


def _call(function, integer: type, a: np.ndarray, diag: np.ndarray, off: np.ndarray, tau: np.ndarray,
          hous: np.ndarray, lhous: int, work: np.ndarray, lwork: int) -> None:
    """One Fortran call ``dsytrd_2stage('N', 'L', ...)`` (hidden string lengths last); raises on info != 0."""
    if not a.flags.f_contiguous or a.dtype != np.float64:
        raise ValueError("dsytrd_2stage needs a Fortran-contiguous float64 array")
    m, info = integer(a.shape[0]), integer(0)
    pointer = ctypes.c_void_p
    function(b"N", b"L", ctypes.byref(m), pointer(a.ctypes.data), ctypes.byref(m),
             pointer(diag.ctypes.data), pointer(off.ctypes.data), pointer(tau.ctypes.data),
             pointer(hous.ctypes.data), ctypes.byref(integer(lhous)), pointer(work.ctypes.data),
             ctypes.byref(integer(lwork)), ctypes.byref(info), ctypes.c_size_t(1), ctypes.c_size_t(1))
    if info.value != 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"dsytrd_2stage failed (info = {info.value})")
