r"""The result file: a header line, then one JSON line per finished point (format in :mod:`symrmt.sweep`).

A running sweep holds the file under an exclusive lock and appends each record with one
``write`` followed by ``fsync``, from the parent process only. Resuming (:class:`ResultFile`)
and ``--summary`` (:func:`read_records`) read it by the same rules:

* **Nothing is written before the whole file is judged.** A file that exists is opened without
  ``O_CREAT``/``O_TRUNC``; its header and every complete record are checked first, and a file
  that fails is refused with one line and left as it was (same bytes, same mtime). So a sweep
  never writes to, or truncates, a file it did not create.
* **The header** is the first line; it must be complete and hold a normalized spec whose hash
  it states. An empty file is adopted (the header is written): it holds nothing to lose, and
  it is what a sweep killed between creating the file and writing the header leaves. A file
  whose only content is an incomplete first line is completed only when that line is the
  start (at least ``{"symrmt_sweep":``) of the very header this spec writes, i.e. the header
  write of a sweep of this spec was cut; any other such file is refused.
* **A record** must be a point of the header's spec, with every field, a key equal to the
  hash of its point (the draw is seeded by it), the spec's hash, γ grid and method, and
  curves of numbers or null of the γ grid's length. Any other line (another spec's record, a
  record whose numbers were edited into another point, missing fields) is refused, naming
  the line: a sweep appends only what it computed, so such a line was written by someone
  else, and a resume or a summary built on it would report numbers no sweep computed.
  Removing the line (or moving the file away) is the user's call.
* **Duplicates.** A point is never written twice by a sweep (the lock, and finished points
  are skipped), but joining or copying files can repeat a line. Identical copies of a record
  are counted once, with a warning: nothing is ambiguous, and refusing would make the user
  edit the file for no gain. Two *different* records of one point are refused: which one
  is right cannot be known.
* **A partial last line** after a valid header and records is what a crash in the middle of
  a write leaves. A resume drops it (truncates the file to its last complete line) when it is
  the start of a record of this spec, ``{"spec_hash":"<hash>","key":"``, and refuses the file
  otherwise; :func:`read_records` ignores it.

I/O errors (an unwritable folder, a full device, a name the system does not allow) are
:class:`~symrmt.errors.SymrmtInputError`\ s that name the file and the error.
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import warnings
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from .. import __version__
from ..errors import SymrmtInputError
from ..runtime.files import read_regular
from .spec import MONTE_CARLO, SweepSpec, normalize_spec, point_key, shown, spec_hash, spec_points

__all__ = ["FORMAT", "ResultFile", "read_records", "header_of", "io_errors"]

#: Version of the result file format (the header's ``symrmt_sweep``).
FORMAT = 1
#: How every header line starts (``json.dumps`` keeps the key order of :func:`header_of`).
_HEADER_START = b'{"symrmt_sweep":'
_CURVE_TYPES = {int, float, type(None)}
_RECORD_FIELDS = ("spec_hash", "key", "f", "center", "a0", "c", "d", "geometry", "n", "p", "seed", "method",
                  "gamma", "theory", "mc")


def header_of(spec: SweepSpec) -> dict:
    """The first line of a result file of ``spec``."""
    return {"symrmt_sweep": FORMAT, "spec_hash": spec.hash, "spec": spec.as_dict(), "points": len(spec.points()),
            "symrmt": __version__}


def _line(obj: dict) -> bytes:
    return (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()


@contextlib.contextmanager
def io_errors(path: Path, doing: str, after: str = "") -> Iterator[None]:
    """An OSError while ``doing`` (a full device, no permission, a name too long) becomes an input error."""
    if "\0" in os.fspath(path):  # os functions raise ValueError for it, before any system call
        raise SymrmtInputError(f"{str(path)!r}: a file name cannot hold a NUL byte.")
    try:
        yield
    except OSError as exc:
        raise SymrmtInputError(f"{str(path)!r}: cannot {doing} ({exc.strerror or exc}){after}.") from None


# ---------------------------------------------------------------------------
# Reading: the header, the records, duplicates
# ---------------------------------------------------------------------------

def _json_lines(path: Path, data: bytes) -> list[tuple[int, Any]]:
    """``(line number, value)`` of the complete lines of ``data``."""
    out = []
    for number, line in enumerate(data[: data.rfind(b"\n") + 1].splitlines(), start=1):
        try:
            out.append((number, json.loads(line)))
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            if number == 1:
                raise _not_a_result_file(path) from None
            raise SymrmtInputError(f"{path} line {number} is not JSON: the file was edited or is not a sweep "
                                   "result; move it away to start over.") from None
    return out


def _header_line(path: Path, lines: list[tuple[int, Any]]) -> dict:
    header = lines[0][1]
    if not isinstance(header, dict) or header.get("symrmt_sweep") != FORMAT:
        raise _not_a_result_file(path)
    return header


def _not_a_result_file(path: Path) -> SymrmtInputError:
    return SymrmtInputError(f"{path} is not a symrmt sweep result file (format {FORMAT}): its first line is not "
                            "a sweep header; choose another --out (the file was left as it is).")


def _checked_spec(path: Path, header: dict) -> dict:
    """The header's spec, checked to be normalized, of the stated hash and number of points."""
    try:
        spec = normalize_spec(header.get("spec"), source="its spec")
    except SymrmtInputError as exc:
        raise SymrmtInputError(f"{path}: the header is damaged ({exc}); move the file away to start over.") from None
    if spec != header["spec"] or spec_hash(spec) != header.get("spec_hash") or \
            header.get("points") != len(spec_points(spec)):
        raise SymrmtInputError(f"{path}: the header is damaged (its spec, spec hash and number of points do not "
                               "agree); move the file away to start over.")
    return spec


def _records(path: Path, lines: list[tuple[int, Any]], spec: Mapping) -> dict[str, dict]:
    """The records of ``lines`` by key, each checked (module docstring); identical copies counted once."""
    expected, own_hash = {point_key(p) for p in spec_points(spec)}, spec_hash(spec)
    first_line: dict[str, int] = {}
    records: dict[str, dict] = {}
    repeated = []
    for number, record in lines:
        problem = _record_problem(record, spec, own_hash, expected)
        if problem:
            raise SymrmtInputError(f"{path} line {number} {problem}: a sweep did not write it (the file was edited "
                                   "or mixes files). Remove that line, or move the file away to start over.")
        key = record["key"]
        if key in records:
            if record != records[key]:
                raise SymrmtInputError(f"{path} lines {first_line[key]} and {number} are two different records of "
                                       f"one point (key {key[:16]}...): remove the wrong one, or move the file away.")
            repeated.append((number, first_line[key]))
            continue
        first_line[key], records[key] = number, record
    if repeated:
        warnings.warn(f"{path}: {len(repeated)} record line(s) repeat an earlier one (line {repeated[0][0]} repeats "
                      f"line {repeated[0][1]}); each point is counted once.", stacklevel=4)
    return records


def _record_problem(record: Any, spec: Mapping, own_hash: str, expected: set[str]) -> str | None:
    """Why ``record`` is not a record of ``spec``, or None."""
    if not isinstance(record, dict):
        return "is not a JSON object"
    missing = [k for k in _RECORD_FIELDS if k not in record]
    if missing:
        return f"misses the field(s) {', '.join(missing)}"
    if record["spec_hash"] != own_hash:
        return f"is a record of another spec (spec hash {shown(record['spec_hash'])}, the header's {own_hash})"
    try:
        own_key = point_key(record)
    except (TypeError, ValueError, RecursionError):  # NaN or Infinity tokens, nesting: canonical JSON refuses them
        return "holds a value that is not valid JSON data"
    if record["key"] != own_key:
        return "has a key that is not the hash of its point (f, center, c, d, geometry, n, seed)"
    if own_key not in expected:
        return "is not a point of the header's spec"
    if (record["gamma"] != spec["gamma"] or record["method"] != spec["method"]
            or record["p"] != int(round(record["c"] * record["n"])) or not _is_number(record["a0"])):
        return "does not match the spec's gamma and method, or its p or a0 is wrong"
    if not _curves(record["theory"], ("a1", "nu"), spec.get("models", MONTE_CARLO), len(spec["gamma"])) or \
            not _curves(record["mc"], (), MONTE_CARLO, len(spec["gamma"])) or \
            not isinstance(record["theory"].get("error"), (str, type(None))):
        return "has theory or Monte Carlo curves that are not lists of numbers or null, one per gamma"
    return None


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)   # type(): a bool is not a number here


def _curves(part: Any, numbers: tuple[str, ...], names: Sequence[str], length: int) -> bool:
    """Whether ``part`` holds the numbers ``numbers`` and one curve per name of ``names`` (of ``length``)."""
    if not isinstance(part, dict) or not all(_is_number(part.get(k)) for k in numbers):
        return False
    curves = [part.get(name) for name in names]
    # Whole-list checks in C (a sweep reads up to 10^5 records of a few curves each): types first, then
    # finiteness of the nonzero entries (filter(None, ...) drops null and zeros, which are finite).
    return all(type(c) is list and len(c) == length and set(map(type, c)) <= _CURVE_TYPES
               and all(map(math.isfinite, filter(None, c))) for c in curves)


def read_records(path: str | os.PathLike) -> tuple[dict | None, list[dict]]:
    """Header and records of a result file, read-only and checked (module docstring).

    Returns ``(None, [])`` for a file that holds no complete line yet (empty, or cut in
    its header); a partial last line is ignored, not removed; a record written twice is
    returned once.

    Raises
    ------
    SymrmtInputError
        The file cannot be read, is not a sweep result file, or holds a line no sweep wrote.

    Parameters
    ----------
    path : str or path
        A result file written by :func:`run_sweep`.

    Returns
    -------
    header, records
        The header (dict, or None before the first complete line) and the list of record dicts.

    See Also
    --------
    summarize : Means and standard errors over the seeds of the records.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from symrmt.sweep import parse_spec, read_records, run_sweep
    >>> spec = parse_spec({"f": "tanh(x)", "c": 1.0, "n": 16, "gamma": [0.1, 1.0], "seeds": 2})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = pathlib.Path(folder) / "results.jsonl"
    ...     _ = run_sweep(spec, out, workers=1, progress=False)
    ...     header, records = read_records(out)
    >>> header["spec_hash"] == spec.hash, header["points"], sorted(r["seed"] for r in records)
    (True, 2, [0, 1])
    >>> record = records[0]
    >>> record["n"], record["p"], record["gamma"], len(record["theory"]["attention"]), len(record["mc"]["linear"])
    (16, 16, [0.1, 1.0], 2, 2)
    """
    data = read_regular(path, "result file")        # a FIFO would wait forever, /dev/zero never end
    path = Path(path)
    lines = _json_lines(path, data)
    if not lines:
        if data[: len(_HEADER_START)] != _HEADER_START[: len(data)]:
            raise SymrmtInputError(f"{path} is not a symrmt sweep result file: it holds no complete line and does "
                                   "not start as a sweep header.")
        return None, []
    header = _header_line(path, lines)
    spec = _checked_spec(path, header)
    return header, list(_records(path, lines[1:], spec).values())


# ---------------------------------------------------------------------------
# Resuming and appending
# ---------------------------------------------------------------------------

class ResultFile:
    """The result file of ``spec``, exclusively locked: judged before any write, then appended to durably.

    ``done`` holds the keys of the points already in the file; ``dropped`` the bytes of a
    partial last line that were removed.
    """

    def __init__(self, path: Path, spec: SweepSpec):
        self.path, self.spec, self.dropped = path, spec, 0
        self.fd, created = _open(path)
        try:
            _check_regular(self.fd, path)
            self._lock()
            self.done = self._load()
            if created:
                _fsync_directory(path.parent)
        except BaseException:
            os.close(self.fd)
            raise

    def _lock(self) -> None:
        try:
            import fcntl  # optional: fcntl, POSIX only
        except ImportError:  # pragma: no cover - not POSIX: no protection against two writers
            return
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SymrmtInputError(f"{self.path} is being written by another running sweep; wait for it "
                                   "or choose another --out.") from None

    def _load(self) -> set[str]:
        with io_errors(self.path, "read it"):
            data = _read_all(self.fd)
        complete = data.rfind(b"\n") + 1
        if complete == 0:
            self._start(data)
            return set()
        lines = _json_lines(self.path, data)
        self._check_header(_header_line(self.path, lines))
        done = set(_records(self.path, lines[1:], self.spec.as_dict()))
        if complete < len(data):
            self._drop_partial_line(data[complete:], complete)
        return done

    def _start(self, data: bytes) -> None:
        """Write the header into an empty file, or complete this spec's own cut header (module docstring)."""
        header = _line(header_of(self.spec))
        if data and not (len(data) >= len(_HEADER_START) and header.startswith(data)):
            raise SymrmtInputError(f"{self.path} is not a symrmt sweep result file: it holds one incomplete line "
                                   "that is not the start of this spec's header; choose another --out.")
        with io_errors(self.path, "write its header", "; nothing else was written"):
            if data:
                os.ftruncate(self.fd, 0)
                self.dropped = len(data)
            self._write(header)

    def _check_header(self, header: dict) -> None:
        if header.get("spec_hash") != self.spec.hash:
            theirs, ours = header.get("spec"), self.spec.as_dict()
            theirs = theirs if isinstance(theirs, dict) else {}
            differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            raise SymrmtInputError(
                f"{self.path} was written by a different spec (spec hash {shown(header.get('spec_hash'))}, this "
                f"spec {self.spec.hash}; keys that differ: {', '.join(str(k)[:40] for k in differ[:9]) or 'none'}). Use "
                "another --out, or move the file away to start over.")
        if header.get("spec") != self.spec.as_dict() or header.get("points") != len(self.spec.points()):
            raise SymrmtInputError(f"{self.path}: the header is damaged (its spec does not have its spec hash); "
                                   "move the file away to start over.")
        if header.get("symrmt") != __version__:
            warnings.warn(f"{self.path} was started with symrmt {shown(header.get('symrmt'))} and is resumed with "
                          f"{__version__}: its records may mix numbers of both versions.", stacklevel=4)

    def _drop_partial_line(self, tail: bytes, complete: int) -> None:
        """Remove what a crash in the middle of a write left, once the rest of the file is known to be good."""
        start = f'{{"spec_hash":"{self.spec.hash}","key":"'.encode()
        if not (tail.startswith(start) or start.startswith(tail)):
            raise SymrmtInputError(f"{self.path}: its last line is incomplete and is not the start of a record of "
                                   "this spec, so it was not written by a sweep; remove it, or move the file away.")
        with io_errors(self.path, "remove its partial last line"):
            os.ftruncate(self.fd, complete)
            os.fsync(self.fd)
        self.dropped = len(tail)

    def append(self, obj: dict) -> None:
        """Write one full line, then fsync: after return the line survives a crash."""
        with io_errors(self.path, "write a record", "; the points finished before are in the file: fix that and run "
                 "the same command to resume"):
            self._write(_line(obj))

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)  # also releases the lock


def _open(path: Path) -> tuple[int, bool]:
    """``(descriptor, created)``: a new file, or an existing one opened without creating or truncating it."""
    with io_errors(path, "open it for writing"):
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644), True
        except FileExistsError:
            return os.open(path, os.O_RDWR | os.O_APPEND), False


def _check_regular(fd: int, path: Path) -> None:
    """A device or a pipe is not a result file (reading a pipe would wait forever)."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise SymrmtInputError(f"{str(path)!r} is not a regular file; give --out a file name.")


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while True:
        chunk = os.pread(fd, 1 << 24, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def _fsync_directory(directory: Path) -> None:
    """Make a new file's directory entry durable too (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
