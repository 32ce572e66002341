"""Command-line text to values: number lists and grids, the ``--gram`` JSON and ``--param``.

Each parser takes the text of one flag and returns a NumPy array (or a pair), or raises
:class:`~symrmt.errors.SymrmtInputError` with one line that names the flag and the fix.
"""
from __future__ import annotations

import json

import numpy as np

from .. import validate
from ..errors import SymrmtInputError, shown as _shown
from ..validate import GRID_GRAMMAR, MAX_GRID_POINTS, grid, integer_text as parse_integer

__all__ = ["parse_gamma", "parse_grid", "parse_gram", "parse_param", "parse_param_value", "parse_sizes",
           "parse_seed", "parse_seed_count"]

def parse_seed(text: str) -> int:
    """``--seed``: :func:`parse_integer`, then :func:`symrmt.validate.seed` (0..2**63-1)."""
    return validate.seed(parse_integer(text))


def parse_seed_count(text: str, minimum: int = 2) -> int:
    """``--seeds``: :func:`parse_integer`, then :func:`symrmt.validate.seed_count` (``minimum``..100000)."""
    return validate.seed_count(parse_integer(text), minimum, hint=validate.TWO_SEEDS[0].upper() + validate.TWO_SEEDS[1:] + ".")


def _numbers(text: str, flag: str, hint: str, plain_log: bool = False,
             finite: str = "every value must be finite") -> np.ndarray:
    """Comma-separated numbers, or a grid ``LO:HI:NUM`` / ``LO:HI:NUMlog`` (:func:`symrmt.validate.grid`; ``plain_log``:
    gamma's old log-spaced reading of ``LO:HI:NUM``, with a warning)."""
    items = text.split(":") if ":" in text else text.split(",")
    if any(not item.strip() for item in items):
        raise SymrmtInputError(f"{flag} {_shown(text)}: has an empty item; {hint}.")
    if ":" in text:
        values = grid(text, subject=f"{flag} {_shown(text)}", expected=hint, plain_log=plain_log)
    else:
        try:
            if len(items) > MAX_GRID_POINTS:
                raise ValueError(f"{len(items)} values; at most {MAX_GRID_POINTS}")
            values = np.array([float(v) for v in items])
        except ValueError as exc:
            raise SymrmtInputError(f"{flag} {_shown(text)}: {hint} ({exc}).") from None
    if not np.all(np.isfinite(values)):
        raise SymrmtInputError(f"{flag} {_shown(text)}: {finite}.")
    return values


def parse_gamma(text: str) -> np.ndarray:
    """``"0.01,0.1,1"`` (a list), ``"1e-3:10:50log"`` (50 log-spaced values from 1e-3 to 10) or ``"0.5:2:4"``
    (evenly spaced; for one release still log-spaced on gamma, with a warning: :func:`symrmt.validate.grid`).

    Every item must be a finite number > 0; an empty item (``1,,2``) is refused, not skipped.

    >>> parse_gamma("1e-2:1:3log")
    array([0.01, 0.1 , 1.  ])
    """
    values = _numbers(text, "--gamma", f"give comma-separated numbers (0.01,0.1,1) or {GRID_GRAMMAR}, e.g. "
                      "1e-3:10:50log", plain_log=True, finite="every gamma must be a finite number > 0")
    if np.any(values <= 0):
        raise SymrmtInputError(f"--gamma {_shown(text)}: every gamma must be a finite number > 0.")
    return values


def parse_sizes(text: str, flag: str = "--ns") -> np.ndarray:
    """``"512,1024,2048,4096"``: comma-separated integer sizes (``symrmt converge --ns``), checked by the library.

    >>> parse_sizes("256, 512,1024").tolist()
    [256, 512, 1024]
    """
    items = text.split(",")
    if any(not item.strip() for item in items):
        raise SymrmtInputError(f"{flag} {_shown(text)}: has an empty item; give comma-separated sizes (512,1024,2048).")
    if len(items) > MAX_GRID_POINTS:
        raise SymrmtInputError(f"{flag} {_shown(text)}: {len(items)} sizes; at most {MAX_GRID_POINTS}.")
    try:
        return np.array([int(item) for item in items], dtype=np.int64)
    except (ValueError, OverflowError):
        raise SymrmtInputError(f"{flag} {_shown(text)}: every size must be an integer, e.g. 512,1024,2048.") from None


def parse_grid(text: str, flag: str = "--x") -> np.ndarray:
    """``"-1:3:200"`` (200 evenly spaced points from -1 to 3), ``"0.1:10:5log"`` (log-spaced) or ``"0.5,1,2"``."""
    return _numbers(text, flag, f"give comma-separated numbers or {GRID_GRAMMAR}")


def parse_gram(text: str) -> np.ndarray:
    """``--gram '[[1, 0.5, 0.5], [0.5, 1, 1], [0.5, 1, 1]]'``: a JSON nested list (never evaluated as code)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SymrmtInputError(f"--gram {_shown(text)}: not valid JSON ({exc.msg}); give a nested list such as "
                               "[[1,0,0],[0,1,0],[0,0,1]].") from None
    except RecursionError:                           # the decoder recurses once per level of nesting
        raise SymrmtInputError(f"--gram {_shown(text)}: nested too deeply; give a list of rows, "
                               "such as [[1,0,0],[0,1,0],[0,0,1]].") from None
    if not (isinstance(value, list) and value and all(isinstance(row, list) for row in value)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for row in value for x in row)
            and {len(row) for row in value} == {len(value)}):       # square: [[]] and [[1, 2]] are not
        raise SymrmtInputError(f"--gram {_shown(text)}: give a square nested list of numbers, the (1+2r) x (1+2r) Gram "
                               "matrix of (mu, w_K^(1..r), w_Q^(1..r)).")
    return np.array(value, dtype=float)


def parse_param(text: str) -> tuple[str, np.ndarray]:
    """``--param s=0.5``, ``s=0.5:2:20`` (20 evenly spaced values), ``s=0.1:10:20log`` (log-spaced) or ``s=0.5,1,2``:
    a parameter of f and its values."""
    name, values = _parameter_text(text, "NAME=VALUE, NAME=LO:HI:NUM or NAME=v1,v2,... (e.g. s=0.5:2:20)")
    return name, parse_grid(values, flag=f"--param {name}=")


def parse_param_value(text: str) -> tuple[str, np.ndarray]:
    """``--param s=0.5``: a parameter of f and its one value (commands that take no grids)."""
    name, values = _parameter_text(text, "NAME=VALUE (e.g. s=0.5)")
    value = parse_grid(values, flag=f"--param {name}=")
    if value.size != 1:
        raise SymrmtInputError(f"--param {_shown(text)}: this command takes one value per parameter (NAME=VALUE); "
                               "grids of parameters are for theory, spectrum and hermite.")
    return name, value


def _parameter_text(text: str, form: str) -> tuple[str, str]:
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise SymrmtInputError(f"--param {_shown(text)}: write {form}.")
    return name.strip(), values
