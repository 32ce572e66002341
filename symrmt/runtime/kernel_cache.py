r"""Compiled kernels kept on disk, so that a new process gets them at the cost of loading, not compiling.

Numba caches machine code on disk only for functions defined in files (``cache=True``); the
kernels of :mod:`symrmt.codegen.numba_backend` are generated as source text. So the source of a
kernel is written to a file of its own in the ``kernels/`` folder of the disk cache
(:func:`symrmt.runtime.cache_dir.cache_root`: ``$SYMRMT_CACHE_DIR``, ``off`` to disable), named by
the SHA-256 of the source together with the Python, NumPy and Numba versions and this format,
compiled under that file's name with Numba's cache on (its files in ``__pycache__`` beside it).

What is checked before anything in the folder is used
----------------------------------------------------
- The source file is never executed: the kernel is compiled from the text generated in this process
  (the system's NumPy code, rewritten), under the file's name so that Numba finds its cache. The file
  must be byte for byte that text (its first line carries the hash); one that differs (truncated,
  edited, another kernel's) is replaced, with a :class:`KernelCacheWarning`, and Numba's files of that
  kernel are deleted with it.
- Numba's own files (its index ``.nbi`` and code ``.nbc``) are pickles: loading one can run any code.
  So the disk cache is used only when the ``kernels`` folder and its ``__pycache__`` belong to this user
  and nobody else can write them, as ssh treats its keys (:func:`symrmt.runtime.cache_dir.untrusted`);
  otherwise every kernel is compiled afresh in memory, with one :class:`KernelCacheWarning`. In such a
  folder, Numba's files are used only when each is a regular file of this user that nobody else can
  write and whose SHA-256 is the one recorded in the JSON manifest written right after Numba wrote them,
  and when the manifest carries the HMAC-SHA-256 of those records under the cache's private key
  (:func:`symrmt.runtime.cache_dir.signing_key`, readable by this user only), so that a pickle and its
  recorded hash rewritten together by someone who cannot read the key are refused. Any other file of
  that kernel's in ``__pycache__`` (no manifest, a changed, an extra, a linked file, a pipe) is deleted
  first, and Numba compiles again. Numba itself also refuses files of another Python or Numba version,
  or of a source whose size or time stamp changed.

Whoever can read the key is this user, who could as well edit the package itself: the checks stop
corruption, stale and foreign files, and other users. Files are read without following a link and
without blocking on a pipe (:func:`symrmt.runtime.files.read_cache_file`); a source file or manifest
that is a link is replaced, never written through. A folder that cannot be written turns the disk cache
off for the process (kernels are then compiled in memory, as without it).
"""
from __future__ import annotations

import hashlib
import hmac
import importlib.metadata
import json
import os
import pathlib
import sys
import types
import warnings
from functools import lru_cache
from typing import Callable

import numpy

from ..errors import printable
from .cache_dir import cache_root, signing_key, untrusted
from .cache_dir import signature as hmac_signature
from .files import read_cache_file, write_text_atomically

__all__ = ["KernelCacheWarning", "kernel_folder", "cached_kernel", "on_disk", "FORMAT"]

#: Bump when the file layout changes: old files are then never matched.
FORMAT = 2
_MAX_FILE = 256_000_000     # a Numba index or code file (real ones are a few hundred kB)
_HEADER = "# symrmt kernel {digest}\nfrom math import nan, pi, sqrt\n\n"
_unusable: set[str] = set()


class KernelCacheWarning(UserWarning):
    """A file of the compiled-kernel cache was refused (and replaced), or the cache is unusable."""


def kernel_folder() -> pathlib.Path | None:
    """The folder of the cached kernels (``<cache root>/kernels``), or None when the disk cache is off."""
    root = cache_root()
    return None if root is None else root / "kernels"


@lru_cache(maxsize=1)
def _versions() -> tuple[str, str]:
    """NumPy's and Numba's versions, read without importing Numba (which takes half a second)."""
    return numpy.__version__, importlib.metadata.version("numba")


def _digest(source: str, signature: str) -> str:
    numpy_version, numba_version = _versions()
    tag = json.dumps({"format": FORMAT, "python": sys.version, "numpy": numpy_version,
                      "numba": numba_version, "signature": signature, "source": source}, sort_keys=True)
    return hashlib.sha256(tag.encode()).hexdigest()


def on_disk(source: str, signature: str) -> bool:
    """Whether the kernel of ``source`` was compiled into the disk cache before (its manifest exists; the files
    are checked when it is loaded). Cheap: no Numba import."""
    folder = kernel_folder()
    if folder is None:
        return False
    try:
        return (folder / f"k_{_digest(source, signature)[:40]}.json").is_file()
    except (OSError, ValueError):
        return False


def _sha(path: pathlib.Path) -> str:
    """The SHA-256 of the regular file ``path`` of this user that nobody else can write (else ValueError)."""
    why = untrusted(path, folder=False)
    if why is not None:
        raise ValueError(f"{path.name} {why}")
    data = read_cache_file(path, _MAX_FILE)
    if data is None:
        raise ValueError(f"{path.name} is gone")
    return hashlib.sha256(data).hexdigest()


def _atomic_write(path: pathlib.Path, text: str) -> None:
    write_text_atomically(path, text, follow=False)       # a link named as the file is replaced, never followed


def _numba_files(folder: pathlib.Path, stem: str) -> list[pathlib.Path]:
    cache = folder / "__pycache__"
    return sorted(cache.glob(f"{stem}.*.nb[ic]")) if cache.is_dir() else []


def _signed_files(key: bytes, digest: str, files: dict) -> str:
    return hmac_signature(key, json.dumps({"format": FORMAT, "digest": digest, "files": files}, sort_keys=True))


def _clean_numba_files(folder: pathlib.Path, stem: str, manifest: pathlib.Path, key: bytes, digest: str) -> None:
    """Delete Numba's files of this kernel unless every one is trusted and has the hash the signed manifest records."""
    files = _numba_files(folder, stem)
    if not files:
        return
    try:
        raw = read_cache_file(manifest, 1_000_000)
        recorded = None if raw is None else json.loads(raw.decode("utf-8"))
        good = (isinstance(recorded, dict) and recorded.get("format") == FORMAT
                and isinstance(recorded.get("files"), dict) and isinstance(recorded.get("signature"), str)
                and hmac.compare_digest(recorded["signature"], _signed_files(key, digest, recorded["files"]))
                and sorted(recorded["files"]) == sorted(p.name for p in files)
                and all(recorded["files"][p.name] == _sha(p) for p in files))
    except (OSError, ValueError, TypeError, AttributeError):
        good = False
    if not good:
        warnings.warn(f"symrmt: compiled-kernel cache files of {stem} in {printable(str(folder))[:200]!r} do not "
                      "match their recorded hashes (signed by the cache's key): deleted, the kernel is compiled again",
                      KernelCacheWarning, stacklevel=4)
        for path in files:
            path.unlink(missing_ok=True)
        manifest.unlink(missing_ok=True)


def _untrusted_folder(folder: pathlib.Path) -> str | None:
    """Why Numba's pickles must not be loaded from ``folder`` (or its ``__pycache__``), or None."""
    for place in (folder, folder / "__pycache__"):
        if place is folder or os.path.lexists(place):
            why = untrusted(place, folder=True)
            if why is not None:
                return f"{printable(str(place))[:200]!r} {why}"
    return None


def _source_file(folder: pathlib.Path, stem: str, text: str) -> pathlib.Path:
    """The kernel's source file, written (or replaced, with a warning, when it is not ``text``)."""
    path = folder / f"{stem}.py"
    try:
        current = read_cache_file(path, len(text) + 1)
    except (OSError, ValueError):                 # a link, a pipe, too long, unreadable: not ours
        current = b""
    if current != text.encode():
        if current is not None:
            warnings.warn(f"symrmt: the cached kernel source {printable(str(path))[:200]!r} is not what this system "
                          "generates (corrupt or foreign): not imported, replaced", KernelCacheWarning, stacklevel=4)
            for stale in _numba_files(folder, stem):
                stale.unlink(missing_ok=True)
        _atomic_write(path, text)
    return path


def cached_kernel(source: str, signature: str, compile_function: Callable[[Callable, str], Callable],
                  name: str = "kernel") -> Callable | None:
    """The kernel ``name`` defined by ``source``, compiled by ``compile_function(function, signature)`` with Numba's
    cache on, from and into the disk cache; None when the disk cache is off or unusable (the caller then compiles
    in memory).

    ``source`` may use ``sqrt``, ``pi`` and ``nan`` (imported from :mod:`math` by the file's header).
    """
    folder = kernel_folder()
    if folder is None or str(folder) in _unusable:
        return None
    digest = _digest(source, signature)
    stem = f"k_{digest[:40]}"
    text = _HEADER.format(digest=digest) + source
    manifest = folder / f"{stem}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        key = signing_key(folder.parent)           # None: said once (CacheDirWarning); compiled in memory
        if key is None:
            _unusable.add(str(folder))
            return None
        why = _untrusted_folder(folder)
        if why is not None:
            _unusable.add(str(folder))
            warnings.warn(f"symrmt: the compiled-kernel cache {why}: its files are not loaded (they are pickles); "
                          "kernels are compiled afresh in memory", KernelCacheWarning, stacklevel=3)
            return None
        path = _source_file(folder, stem, text)
        _clean_numba_files(folder, stem, manifest, key, digest)
        had_files = bool(_numba_files(folder, stem))
        # What runs is the text built here, never what is read from the file: the file is there for Numba, which
        # finds its cache beside the function's file (co_filename) and checks the file's size and time stamp.
        # It is registered as a module: Numba names the module of a cached function, and imports it when loading.
        module = types.ModuleType(f"symrmt_kernel_{digest[:40]}")
        module.__file__ = str(path)
        exec(compile(text, str(path), "exec"), module.__dict__)     # noqa: S102 - our own generated source
        sys.modules[module.__name__] = module
        namespace = module.__dict__
        kernel = compile_function(namespace[name], signature)
        if not had_files:
            files = {p.name: _sha(p) for p in _numba_files(folder, stem)}
            if files:
                _atomic_write(manifest, json.dumps({"format": FORMAT, "digest": digest, "files": files,
                                                    "signature": _signed_files(key, digest, files)}, indent=1))
        return kernel
    except (OSError, ValueError) as exc:
        _unusable.add(str(folder))
        warnings.warn(f"symrmt: the compiled-kernel cache is off: cannot use {printable(str(folder))[:200]!r} "
                      f"({printable(str(exc))[:200]}); set "
                      "SYMRMT_CACHE_DIR to a writable folder, or to 'off'", KernelCacheWarning, stacklevel=3)
        return None
