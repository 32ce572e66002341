"""The error of the weights reader: a weight file (or its configuration) that cannot be used."""
from __future__ import annotations

from ..errors import SymrmtInputError

__all__ = ["WeightFileError"]


class WeightFileError(SymrmtInputError):
    """A weight file that is not a readable safetensors file of a known layout; the message names the fix.

    Examples
    --------
    >>> from symrmt.weights import WeightFileError, read_weights
    >>> try:
    ...     read_weights("no-such-file.safetensors")
    ... except WeightFileError as exc:
    ...     print(str(exc).split(": ", 1)[1])
    no such file; give a .safetensors file or a zip holding one.
    """
