r"""The result file: a header line, then one JSON line per finished point (format in :mod:`symrmt.sweep`).

A running sweep holds the file under an exclusive lock and appends each record with one
``write`` followed by ``fsync``, from the parent process only.
"""
from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

from ..errors import SymrmtInputError
from .spec import SweepSpec, point_key

__all__ = ["FORMAT", "ResultFile", "read_records", "header_of"]

#: Version of the result file format (the header's ``symrmt_sweep``).
FORMAT = 1


def header_of(spec: SweepSpec) -> dict:
    """The first line of a result file of ``spec``."""
    from .. import __version__

    return {"symrmt_sweep": FORMAT, "spec_hash": spec.hash, "spec": spec.as_dict(), "points": len(spec.points()),
            "symrmt": __version__}


def _parse_lines(path: Path, data: bytes) -> tuple[dict | None, list[dict]]:
    """Header and records of the complete lines of ``data`` (a partial last line is ignored)."""
    lines = data[: data.rfind(b"\n") + 1].splitlines()
    parsed = []
    for number, line in enumerate(lines, start=1):
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise SymrmtInputError(f"{path} line {number} is not JSON: the file was edited or is not a sweep "
                                   "result; move it away to start over.") from None
    if not parsed:
        return None, []
    header = parsed[0]
    if not isinstance(header, dict) or header.get("symrmt_sweep") != FORMAT:
        raise SymrmtInputError(f"{path} is not a symrmt sweep result file (format {FORMAT}): its first line "
                               "is not a sweep header; choose another --out.")
    return header, parsed[1:]


def read_records(path: str | os.PathLike) -> tuple[dict | None, list[dict]]:
    """Header and records of a result file, read-only (a partial last line is ignored, not removed)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SymrmtInputError(f"{path}: cannot read it ({exc.strerror}).") from None
    return _parse_lines(path, data)


class ResultFile:
    """An exclusively locked result file: drops a partial last line, checks the header, appends durably."""

    def __init__(self, path: Path, spec: SweepSpec):
        self.path, self.spec, self.dropped = path, spec, 0
        created = not path.exists()
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise SymrmtInputError(f"--out {str(path)!r}: cannot open it for writing ({exc.strerror}).") from None
        try:
            self._lock()
            self.done = self._load()
            if created:
                _fsync_directory(path.parent)
        except BaseException:
            os.close(self.fd)
            raise

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no protection against two writers
            return
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SymrmtInputError(f"{self.path} is being written by another running sweep; wait for it "
                                   "or choose another --out.") from None

    def _load(self) -> set[str]:
        size = os.fstat(self.fd).st_size
        os.lseek(self.fd, 0, os.SEEK_SET)  # writes still go to the end (O_APPEND)
        data = os.read(self.fd, size)
        complete = data.rfind(b"\n") + 1
        if complete < len(data):  # the crash happened in the middle of a write
            os.ftruncate(self.fd, complete)
            os.fsync(self.fd)
            self.dropped = len(data) - complete
        header, records = _parse_lines(self.path, data)
        if header is None:
            self.append(header_of(self.spec))
            return set()
        self._check_header(header)
        return self._check_records(records)

    def _check_header(self, header: dict) -> None:
        from .. import __version__
        if header.get("spec_hash") == self.spec.hash:
            if header.get("symrmt") != __version__:
                warnings.warn(f"{self.path} was started with symrmt {header.get('symrmt')} and is resumed with "
                              f"{__version__}: its records may mix numbers of both versions.", stacklevel=4)
            return
        theirs, ours = header.get("spec") or {}, self.spec.as_dict()
        differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
        raise SymrmtInputError(
            f"{self.path} was written by a different spec (spec hash {header.get('spec_hash')}, this spec "
            f"{self.spec.hash}; keys that differ: {', '.join(differ) or 'none'}). Use another --out, or move "
            "the file away to start over.")

    def _check_records(self, records: list[dict]) -> set[str]:
        expected = {point_key(p) for p in self.spec.points()}
        done = set()
        for record in records:
            key = record.get("key") if isinstance(record, dict) else None
            if key not in expected or record.get("spec_hash") != self.spec.hash:
                raise SymrmtInputError(f"{self.path} holds a record that is not a point of this spec "
                                       f"(key {key!r}); the file was edited. Move it away to start over.")
            done.add(key)
        return done

    def append(self, obj: dict) -> None:
        """Write one full line, then fsync: after return the line survives a crash."""
        data = (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)  # also releases the lock


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
