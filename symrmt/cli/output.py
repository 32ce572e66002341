"""What the command line writes: the JSON text, one-line messages and warnings, table cells."""
from __future__ import annotations

import json
import sys

import numpy as np

__all__ = ["json_text", "one_line", "show_warning", "cell"]


def json_text(out: dict) -> str:
    """The ``--json`` document: indented, and never NaN or inf (``allow_nan=False`` raises instead)."""
    return json.dumps(out, indent=2, allow_nan=False)


def one_line(exc: BaseException) -> str:
    """An exception's message with its line breaks and runs of blanks folded into single spaces."""
    return " ".join(str(exc).split())


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Replacement of :func:`warnings.showwarning`: ``symrmt: warning: <one line>`` on stderr."""
    print(f"symrmt: warning: {one_line(message) if isinstance(message, Warning) else message}", file=sys.stderr)


def cell(value: float | None, width: int) -> str:
    """A table cell of ``width`` with 5 decimals, or ``-`` for a missing or non-finite value."""
    return f"{value:{width}.5f}" if value is not None and np.isfinite(value) else f"{'-':>{width}}"
