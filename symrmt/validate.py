"""Checks of numeric user input shared by the public layers (NumPy only)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ParameterError

__all__ = ["MAX_GRID_POINTS", "real_array"]

#: Most values in one grid given by its size (``LO:HI:NUM`` on the command line, a sweep's γ grid, seeds
#: and points): large enough for any figure or study, small enough that a typo (1e9) is refused before
#: anything is allocated instead of ending in MemoryError.
MAX_GRID_POINTS = 100_000


def real_array(name: str, value: Any, finite: bool = True) -> np.ndarray:
    """``value`` as a float64 array, or a :class:`ParameterError` naming ``name``: no complex, no text, no ragged lists."""
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        raise ParameterError(f"{name} = {value!r}: give a number or an array of numbers.") from None
    if array.dtype.kind == "c":
        raise ParameterError(f"{name}: complex values are not allowed (got {array.ravel()[:3].tolist()}).")
    if array.dtype.kind not in "biuf":
        raise ParameterError(f"{name} = {value!r}: give a real number or an array of real numbers.")
    array = array.astype(float)
    if finite and not np.all(np.isfinite(array)):
        raise ParameterError(f"{name} = {value!r}: every value must be finite.")
    return array
