"""The one way the package writes a file: atomically, and never onto one of the command's own inputs.

:func:`write_atomically` writes into a temporary file in the target's folder, flushes it to disk, then
puts it in place at once (``os.replace``, atomic on POSIX and Windows): a write that fails (a full disk,
a file-size limit, a kill) leaves the old file as it was, or no file, never half of one. On Linux the
temporary file has no name while it is written (``O_TMPFILE``), so even a kill leaves nothing behind;
elsewhere, and on file systems without it, it is a hidden ``.NAME.XXXXXXXX.tmp`` beside the target, removed
on any failure the process lives through. A symbolic link named as the target is followed (the link
stays, the file it points to is replaced), as ``open`` does; a hard link is broken (the other name keeps
the old bytes). With ``replace=False`` an existing file is never replaced: the first free name of
``NAME-1.EXT``, ``NAME-2.EXT``, ... is used instead, without a race (:func:`fresh_path`).
:func:`save_figure` writes a matplotlib figure that way, in the format its extension names.
:func:`check_not_an_input` and :func:`check_outputs` compare files by identity (``os.path.samefile``),
so a symbolic or hard link or ``sub/..`` is caught too.
"""
from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Sequence

from ..errors import ParameterTypeError, SymrmtInputError, shown

__all__ = ["write_atomically", "write_text_atomically", "save_figure", "fresh_path", "same_file",
           "check_not_an_input", "check_outputs", "read_regular", "read_cache_file"]

#: Whether a file opened with ``O_TMPFILE`` can be given a name through ``/proc/self/fd`` (found out at first use).
_LINK_FROM_PROC: list[bool] = []
_MAX_FRESH = 10_000          # NAME-1 .. NAME-9999: a folder holding all of them is not one to fill further


def write_atomically(path: str | os.PathLike, write: Callable[[IO], Any], binary: bool = False,
                     encoding: str = "utf-8", *, replace: bool = True, follow: bool = True) -> Path:
    """Call ``write(stream)`` on a temporary file beside ``path``, then put it in place of ``path`` at once.

    Parameters
    ----------
    path
        The file to write; a symbolic link is followed.
    write
        Writes the content to the stream it is given (bytes with ``binary``, else text with ``encoding``
        and no newline translation).
    replace
        True: an existing file is replaced (its permissions kept; a read-only one is refused, as ``open``
        refuses it, although a rename could replace it). False: it is kept, and the content goes
        to the first free name of ``NAME-1.EXT``, ``NAME-2.EXT``, ... (see :func:`fresh_path`). A device or
        a pipe (``/dev/null``) is written into directly: there is no file to replace.
    follow
        True: a symbolic link named ``path`` is followed, a device or a pipe written into (a user's output).
        False (the caches): whatever has the name ``path`` (a link, dangling or not, a pipe, a device, a
        read-only file) is replaced by the new file, so the write never leaves ``path``'s folder and never
        blocks on a pipe; only a folder there is refused.

    Returns
    -------
    Path
        The name written: ``path``, or the fresh name with ``replace=False``.

    Raises
    ------
    OSError
        The write failed (it names ``path``); the target is untouched and no temporary file is left.
    """
    named = Path(path)
    target = Path(os.path.realpath(named)) if follow and replace and os.path.islink(named) else named
    folder = target.parent
    try:
        if not follow:
            if os.path.isdir(named) and not os.path.islink(named):
                raise IsADirectoryError(errno.EISDIR, "Is a directory", os.fspath(path))
        elif replace and _special(target, path):          # a device or a pipe: written into, nothing to replace
            with open(target, "wb" if binary else "w", **({} if binary else {"encoding": encoding, "newline": ""})) \
                    as stream:
                write(stream)
            return named
        if follow and replace and os.path.exists(target) and not os.access(target, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied (the file is read-only)", os.fspath(path))
        descriptor, temporary = _open_temporary(folder, target.name)
        try:
            with _stream(descriptor, binary, encoding) as stream:
                write(stream)
                stream.flush()
                os.fsync(descriptor)
            if replace:
                if follow:
                    _keep_mode(target, descriptor)
                temporary = _name_temporary(descriptor, folder, target.name, temporary)
                os.replace(temporary, target)
                written = named
            else:
                written = _place_fresh(descriptor, temporary, named)
            temporary = None
        finally:
            os.close(descriptor)
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or " ".join(str(exc).split()), os.fspath(path)) from None
    _sync_folder(folder)
    return written


def write_text_atomically(path: str | os.PathLike, text: str, encoding: str = "utf-8", *,
                          replace: bool = True, follow: bool = True) -> Path:
    """:func:`write_atomically` of one string."""
    return write_atomically(path, lambda stream: stream.write(text), encoding=encoding, replace=replace,
                            follow=follow)


def save_figure(fig: Any, path: str | os.PathLike, *, replace: bool = True, **options: Any) -> Path:
    """Write the matplotlib figure ``fig`` to ``path`` with :func:`write_atomically`, in the format of its extension.

    The format is passed to ``savefig`` explicitly (``format=``), so that the bytes are those of the
    extension whatever matplotlib would guess from a stream; ``options`` go to ``savefig`` (``dpi``).
    Raises :class:`~symrmt.errors.SymrmtInputError` for an extension matplotlib cannot write.
    """
    extension = Path(path).suffix.lower().lstrip(".")
    supported = fig.canvas.get_supported_filetypes()
    if extension not in supported:
        raise SymrmtInputError(f"{_shown(path)}: matplotlib cannot write {extension or 'a file without extension'!r}; "
                               f"use one of {', '.join('.' + f for f in sorted(supported))}.")
    return write_atomically(path, lambda stream: fig.savefig(stream, format=extension, **options), binary=True,
                            replace=replace)


def fresh_path(path: str | os.PathLike, suffixes: Sequence[str] = ()) -> Path:
    """``path`` if no file has that name, else the first free ``NAME-1.EXT``, ``NAME-2.EXT``, ...

    ``suffixes`` (e.g. ``(".csv",)``): companions that must be free under the same stem too, so that a
    figure and its table keep one name. A dangling symbolic link counts as taken.
    """
    path = Path(path)
    stem, suffix = path.stem, path.suffix
    for k in range(_MAX_FRESH):
        name = f"{stem}-{k}" if k else stem
        candidates = [path.with_name(name + s) for s in (suffix, *suffixes)]
        if not any(os.path.lexists(c) for c in candidates):
            return candidates[0]
    raise SymrmtInputError(f"{_shown(path)}: {_MAX_FRESH} names {stem}-K{suffix} are taken in that folder; "
                           "name the output yourself.")


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Whether ``a`` and ``b`` name one file: by identity when both exist (links, ``sub/..``), else by resolved name."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        if os.path.exists(a) or os.path.exists(b):       # one exists, the other does not: two files
            return False
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def check_not_an_input(path: str | os.PathLike, flag: str, inputs: Iterable[tuple[str | os.PathLike, str]]) -> None:
    """Refuse an output ``path`` that is the same file as one of ``inputs`` (``(path, flag)`` pairs), by identity.

    >>> check_not_an_input("out.png", "--plot", [("/nonexistent/in.safetensors", "FILE")])
    """
    for other, other_flag in inputs:
        if other is not None and os.path.exists(other) and same_file(path, other):
            raise SymrmtInputError(f"{flag} {_shown(path)} is the file given to {other_flag}: writing it would "
                                   "replace that input; choose another name.")


def check_outputs(outputs: Sequence[tuple[str | os.PathLike, str]],
                  inputs: Iterable[tuple[str | os.PathLike, str]] = ()) -> None:
    """Refuse outputs (``(path, flag)`` pairs) that are one of ``inputs`` or the same file as another output."""
    inputs = list(inputs)
    for i, (path, flag) in enumerate(outputs):
        check_not_an_input(path, flag, inputs)
        for other, other_flag in outputs[:i]:
            if same_file(path, other):
                raise SymrmtInputError(f"{flag} {_shown(path)} and {other_flag} {_shown(other)} are the same file: "
                                       "one would overwrite the other; give different names (or remove the link).")


# --------------------------------------------------------------------------- internals

def read_regular(path: str | os.PathLike, what: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit + 1`` of them, so a caller can tell it is too long).

    The one way the package reads an input file it parses whole (sweep specs, sweep result files): a pipe,
    a device or a socket is refused before anything is read, since reading a FIFO waits for a writer
    forever and ``/dev/zero`` never ends. The file is opened without blocking (``O_NONBLOCK``: opening a
    FIFO with no writer would itself wait) and checked on the opened descriptor, so a file swapped after a
    check cannot slip through. An ``OSError`` becomes a :class:`~symrmt.errors.SymrmtInputError` naming
    ``what`` (``"spec"``, ``"--summary"``).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterTypeError(f"{what} = {shown(path)}: give the file's path, a str or a pathlib.Path.")
    shown_path = _shown(path)
    if "\0" in os.fspath(path):             # os functions raise ValueError for it, before any system call
        raise SymrmtInputError(f"{what} {shown_path}: a file name cannot hold a NUL byte.")
    try:
        return _read_regular(path, limit, follow=True)
    except IsADirectoryError:
        raise SymrmtInputError(f"{what} {shown_path}: cannot read it ({os.strerror(errno.EISDIR)}).") from None
    except _NotRegular:
        raise SymrmtInputError(f"{what} {shown_path}: is not a regular file (a pipe, a device or a socket); "
                               "give a file name.") from None
    except OSError as exc:
        raise SymrmtInputError(f"{what} {shown_path}: cannot read it ({exc.strerror or exc}).") from None


def read_cache_file(path: str | os.PathLike, limit: int) -> bytes | None:
    """The bytes of the cache file ``path``, or None when there is none; the one reader of the disk caches.

    As :func:`read_regular`, but for files the package wrote itself: a symbolic link at ``path`` is not
    followed (``O_NOFOLLOW``), and anything but a regular file (a link, a pipe, a device, a socket, a folder)
    or a file of more than ``limit`` bytes raises :class:`ValueError` (the caller discards the entry).
    Never blocks: a pipe is opened with ``O_NONBLOCK`` and refused on its descriptor.

    >>> read_cache_file("/nonexistent/entry.json", 100) is None
    True
    """
    try:
        data = _read_regular(path, limit, follow=False)
    except FileNotFoundError:
        return None
    except (_NotRegular, IsADirectoryError):
        raise ValueError("not a regular file (a link, a pipe, a device, a socket or a folder)") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:           # O_NOFOLLOW met a symbolic link
            raise ValueError("a symbolic link, which the cache never writes") from None
        raise
    if len(data) > limit:
        raise ValueError(f"larger than {limit} bytes")
    return data


class _NotRegular(OSError):
    """A pipe, a device or a socket where a regular file was expected."""


def _read_regular(path: str | os.PathLike, limit: int | None, follow: bool) -> bytes:
    """At most ``limit + 1`` bytes of the regular file ``path``, opened without blocking, checked on its descriptor."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise _NotRegular(errno.EINVAL, "not a regular file", os.fspath(path))
        chunks, size = [], 0
        while limit is None or size <= limit:
            chunk = os.read(descriptor, 1 << 24 if limit is None else min(1 << 24, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _shown(path: str | os.PathLike, limit: int = 120) -> str:
    """``repr`` of a path, shortened in the middle when long (a message stays one readable line)."""
    text = repr(os.fspath(path))
    return text if len(text) <= limit else f"{text[: limit // 2 - 2]}...{text[-(limit // 2 - 2):]}"


def _special(target: Path, path: str | os.PathLike) -> bool:
    """Whether ``target`` exists and is not a regular file: a folder is refused, a device or a pipe is special."""
    try:
        mode = os.stat(target).st_mode
    except (OSError, ValueError):
        return False
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", os.fspath(path))
    return not stat.S_ISREG(mode)


def _open_temporary(folder: Path, name: str) -> tuple[int, str | None]:
    """``(descriptor, name)`` of a new file in ``folder``: unnamed (None) where the system allows, else hidden."""
    if hasattr(os, "O_TMPFILE"):
        try:
            return os.open(folder if str(folder) else ".", os.O_TMPFILE | os.O_RDWR, 0o666), None
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOTSUP):
                raise
    return _open_named(folder, name)


def _open_named(folder: Path, name: str) -> tuple[int, str]:
    """A hidden ``.NAME.XXXXXXXX.tmp`` in ``folder``, created exclusively with the default permissions."""
    for _ in range(100):
        temporary = os.path.join(folder, f".{name[:200]}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", os.fspath(folder))


@contextlib.contextmanager
def _stream(descriptor: int, binary: bool, encoding: str):
    """A file object on ``descriptor`` that leaves it open (it is named after the write)."""
    if binary:
        with os.fdopen(descriptor, "wb", closefd=False) as stream:
            yield stream
    else:
        with os.fdopen(descriptor, "w", encoding=encoding, newline="", closefd=False) as stream:
            yield stream


def _name_temporary(descriptor: int, folder: Path, name: str, temporary: str | None) -> str:
    """The name of the written temporary file: an unnamed one is linked (or, where it cannot be, copied) to one."""
    if temporary is not None:
        return temporary
    while _LINK_FROM_PROC != [False]:
        candidate = os.path.join(folder, f".{name[:200]}.{secrets.token_hex(4)}.tmp")
        if _link_unnamed(descriptor, candidate):
            return candidate
    copy, candidate = _open_named(folder, name)       # the data are complete: a copy under a name
    try:
        with contextlib.suppress(OSError, AttributeError):
            os.fchmod(copy, os.fstat(descriptor).st_mode & 0o7777)
        _copy(descriptor, copy)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(candidate)
        raise
    finally:
        os.close(copy)
    return candidate


def _link_unnamed(descriptor: int, candidate: str) -> bool:
    """Give the unnamed file ``descriptor`` the name ``candidate`` (False: taken, or not possible here)."""
    try:
        os.link(f"/proc/self/fd/{descriptor}", candidate, follow_symlinks=True)
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EMLINK):
            raise
        _LINK_FROM_PROC[:] = [False]      # no /proc, or a system that refuses (EXDEV, EPERM): copied, now and later
        return False
    _LINK_FROM_PROC[:] = [True]
    return True


def _copy(source: int, target: int) -> None:
    offset = 0
    while True:
        chunk = os.pread(source, 1 << 20, offset)
        if not chunk:
            break
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view):]
        offset += len(chunk)
    os.fsync(target)


def _place_fresh(descriptor: int, temporary: str | None, named: Path) -> Path:
    """Put the written file under the first free name of ``named``, ``NAME-1.EXT``, ...; never replaces a file."""
    if temporary is None:
        while _LINK_FROM_PROC != [False]:              # the unnamed file straight under a free name, if it can be
            candidate = fresh_path(named)
            if _link_unnamed(descriptor, candidate):
                return candidate
        temporary = _name_temporary(descriptor, named.parent, named.name, None)
    try:
        for _ in range(_MAX_FRESH):
            candidate = fresh_path(named)
            try:
                os.link(temporary, candidate)           # fails if the name was taken meanwhile: then the next one
            except FileExistsError:
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
                os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # no hard links here
                os.replace(temporary, candidate)
            return candidate
        raise FileExistsError(errno.EEXIST, "no free name", os.fspath(named))
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _keep_mode(target: Path, descriptor: int) -> None:
    """Keep the permissions of a file being replaced; a new file has the default a plain ``open`` gives."""
    with contextlib.suppress(OSError, AttributeError):       # AttributeError: no fchmod (Windows)
        os.fchmod(descriptor, target.stat().st_mode & 0o7777)


def _sync_folder(folder: Path) -> None:
    """Make the new name durable too (POSIX; nothing where a folder cannot be opened)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder if str(folder) else ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
