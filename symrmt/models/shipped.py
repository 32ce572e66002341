r"""The compiled systems shipped with the package: ``python -m symrmt.models.shipped`` regenerates them.

A first call in a fresh environment would derive its systems in SymPy and generate their NumPy code
(about a second). The package therefore ships, as package data in
:data:`~symrmt.codegen.system_cache.SHIPPED`, the entries of :mod:`~symrmt.codegen.system_cache`
for the default requests of its built-in models (:func:`requests`): for each, the summary of the
quadrature system and the compiled system in both derived forms, at rank 1, and attention's at rank 2 too (what
``symrmt check``'s rank-reduction property solves: about 25 kB, against 3 s to derive and compile it on a first
call). :func:`write` produces
them with the same :func:`~symrmt.codegen.compile_system` and the same writer as the user's cache,
so what is shipped is exactly what a derivation in this process generates; the files are
regenerated, never edited by hand. Their tag is the SHA-256 of the derive, codegen and models
sources (:func:`~symrmt.codegen.system_cache.shipped_tag`): after any change of those sources the
shipped entries are a miss until this command is run again, and :func:`stale` (held by a test)
names the entries to regenerate.

    python -m symrmt.models.shipped
"""
from __future__ import annotations

import json
import pathlib

from ..codegen import system_cache
from .model import _ours, _request, get, models

__all__ = ["requests", "write", "stale", "COMMAND"]

#: The command that regenerates the shipped entries (named in the staleness test's message).
COMMAND = "python -m symrmt.models.shipped"
_FORMS = ("algebraic", "quadrature")
#: The models whose rank-2 systems are shipped too: the property catalogue (``symrmt check``) solves attention at
#: rank 2 (:func:`symrmt.testing.checks.check_rank_reduction`).
_RANK_TWO = ("attention",)


def requests() -> list[dict]:
    """The requests whose entries are shipped: each built-in model at rank 1, its summary and both forms; attention
    also at rank 2 (:data:`_RANK_TWO`)."""
    out = []
    for model in models():
        if _ours(model):
            for rank in (1, 2) if model.name in _RANK_TWO else (1,):
                out.append({**_request(model, rank, "quadrature"), "kind": "summary"})
                out.extend({**_request(model, rank, form), "kind": "compiled"} for form in _FORMS)
    return out


def _data(request: dict) -> dict:
    from ..codegen import compile_system  # heavy: SymPy

    model = get(request["model"])
    system = model.system(request["rank"], request["form"], request["without_linear_part"])
    if request["kind"] == "summary":
        return system_cache._summary_to(system_cache.SystemSummary.of(system))
    return system_cache._system_to(compile_system(system))


def write(folder: pathlib.Path | None = None) -> list[pathlib.Path]:
    """Derive and write every entry of :func:`requests` into ``folder`` (default: the package's), replacing the old.

    Returns the paths written. Raises if a system cannot be written as checked data (it could not be shipped)."""
    folder = system_cache.SHIPPED if folder is None else pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    written = []
    for request in requests():
        path = folder / system_cache.shipped_name(request)
        path.write_text(system_cache.entry_text(request, _data(request), system_cache.shipped_tag(), indent=1) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written


def stale(folder: pathlib.Path | None = None) -> list[str]:
    """The names of shipped entries that are missing, of other sources than these, or not of :func:`requests`."""
    folder = system_cache.SHIPPED if folder is None else pathlib.Path(folder)
    wanted = {system_cache.shipped_name(r): r for r in requests()}
    out = sorted(p.name for p in folder.glob("*.json") if p.name not in wanted)
    for name, request in wanted.items():
        path = folder / name
        entry = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        if {"format": entry.get("format"), "tag": entry.get("tag")} != system_cache.shipped_tag() \
                or entry.get("request") != request:
            out.append(name)
    return out


if __name__ == "__main__":
    for written in write():
        print(written)
