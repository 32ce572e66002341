"""Where symrmt keeps what it caches on disk, and what of it can be trusted: one rule for every cache.

The root (:func:`cache_root`) holds one folder per cache (Hermite data, compiled systems, compiled
kernels). Two of them hold what the package later runs: the compiled-system cache (checked code) and
the kernel cache (Numba's pickles). They are used only from folders and files that this user owns and
nobody else can write (:func:`untrusted`, as ssh treats its keys), and their entries carry an HMAC-SHA-256
under a key of the root that only this user can read (:func:`signing_key`, :func:`signature`): an entry
written by anyone who cannot read that key, a checksum recomputed by a forger, is refused.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import pathlib
import secrets
import stat
import warnings

from ..errors import printable, shown
from .files import read_cache_file

__all__ = ["cache_root", "untrusted", "signing_key", "signature", "CacheDirWarning"]

_KEY_NAME = "signing-key"
_KEY_BYTES = 32
_warned: set[str] = set()


class CacheDirWarning(UserWarning):
    """The disk caches' folder is not usable as given (``~user`` that names no user, a key that cannot be trusted)."""


def _warn_once(tag: str, message: str) -> None:
    if tag not in _warned:
        _warned.add(tag)
        warnings.warn(message, CacheDirWarning, stacklevel=3)


def cache_root() -> pathlib.Path | None:
    """The root folder of symrmt's disk caches, or None when caching on disk is off.

    ``$SYMRMT_CACHE_DIR`` (``off`` or empty: None), else ``$XDG_CACHE_HOME/symrmt``
    (an absolute ``XDG_CACHE_HOME`` only, as the XDG specification says), else
    ``~/.cache/symrmt``; ``~`` is expanded. Each cache uses a folder of its own under it.
    A ``~user`` that does not expand (no such user) turns the caches off with one
    :class:`CacheDirWarning`, instead of creating a folder named ``~user`` in the current one.
    """
    explicit = os.environ.get("SYMRMT_CACHE_DIR")
    if explicit is not None:
        explicit = explicit.strip()
        if not explicit or explicit.lower() == "off":
            return None
        expanded = os.path.expanduser(explicit)
        if expanded.startswith("~"):
            _warn_once("tilde", f"symrmt: SYMRMT_CACHE_DIR = {shown(explicit)}: {shown(explicit.split('/')[0])} "
                                "names no home folder; the disk caches are off (give an absolute path)")
            return None
        return pathlib.Path(expanded)
    xdg = os.path.expanduser(os.environ.get("XDG_CACHE_HOME", "").strip())
    return pathlib.Path(xdg) / "symrmt" if os.path.isabs(xdg) else pathlib.Path.home() / ".cache" / "symrmt"


def untrusted(path: str | os.PathLike, folder: bool) -> str | None:
    """Why the folder (``folder=True``) or regular file ``path`` must not be trusted, or None when it may.

    It may when it is what it claims to be (not a symbolic link), belongs to this user, and neither its
    group nor others can write it. Where the system has no user ids (Windows) nothing is checked.

    >>> import tempfile
    >>> untrusted(tempfile.mkdtemp(), folder=True) is None
    True
    """
    if not hasattr(os, "getuid"):
        return None
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot be checked ({exc.strerror or exc})"
    if not (stat.S_ISDIR if folder else stat.S_ISREG)(info.st_mode):
        return "is not a folder" if folder else "is not a regular file"
    if info.st_uid != os.getuid():
        return "belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "can be written by other users"
    return None


def signing_key(root: pathlib.Path) -> bytes | None:
    """The secret key of the cache ``root`` (created on first use, readable by this user only), or None.

    None, with one :class:`CacheDirWarning`, when the root or the key cannot be trusted
    (:func:`untrusted`; the key must also be readable by nobody else) or cannot be created: the
    caches that need it then use nothing from disk.
    """
    path = root / _KEY_NAME
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(path):
            _create_key(root, path)
        why = untrusted(root, folder=True) or untrusted(path, folder=False)
        if why is None and hasattr(os, "getuid") and os.lstat(path).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            why = "can be read by other users"
        if why is None:
            key = read_cache_file(path, _KEY_BYTES)
            why = None if key is not None and len(key) == _KEY_BYTES else "is not a key of this package"
    except (OSError, ValueError) as exc:
        why = f"cannot be used ({exc})"
    if why is not None:
        _warn_once(f"key:{root}", f"symrmt: the disk cache {printable(str(path))[:200]!r} {why}: compiled systems "
                                  "and kernels are not read from disk in this process")
        return None
    return key


def _create_key(root: pathlib.Path, path: pathlib.Path) -> None:
    """Write a new key: a private temporary file, then linked to its name (a key made meanwhile wins)."""
    temporary = root / f".{_KEY_NAME}.{secrets.token_hex(4)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(descriptor, secrets.token_bytes(_KEY_BYTES))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    try:
        os.link(temporary, path)
    except FileExistsError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        with contextlib.suppress(FileExistsError):       # no hard links here: an exclusive rename is not atomic,
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # so claim the name first
            os.replace(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def signature(key: bytes, text: str) -> str:
    """The HMAC-SHA-256 of ``text`` under ``key``, as hex: what a cache entry carries in place of a checksum.

    >>> len(signature(b"k" * 32, "entry"))
    64
    """
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
