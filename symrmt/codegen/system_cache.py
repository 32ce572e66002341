r"""Compiled systems kept on disk as checked data, so that a new process skips the derivation and the code generation.

A process that solves a model derives its system in SymPy and generates its NumPy functions
(:func:`~symrmt.codegen.compile_system`): seconds, in every new process. :func:`compiled` keeps
what that produced for a (model, rank, form) on disk in the ``systems/`` folder of the disk cache
(:func:`symrmt.runtime.cache_dir.cache_root`; ``SYMRMT_CACHE_DIR=off`` disables it), one JSON file
per request: the source text of each generated function, the names of the NumPy functions it calls,
the keys (each a symbol's name and assumptions) and the data the solver needs (domains, counts,
branch comparisons). :func:`summary` keeps what the theory layer reads of the quadrature system
itself (its name, parameters and their domains, unknowns, observables) the same way.

What is checked before an entry is used
---------------------------------------
The file is untrusted data. It is used only when

- it is a regular file (read without following a link or blocking on a pipe:
  :func:`symrmt.runtime.files.read_cache_file`) in a folder that this user owns and nobody else can
  write, and owned by this user too (:func:`symrmt.runtime.cache_dir.untrusted`);
- its checksum is the HMAC-SHA-256 of its content under the cache's private key
  (:func:`symrmt.runtime.cache_dir.signing_key`, readable by this user only): an entry written or edited
  by anyone who cannot read the key, such as a forger who changes a value and recomputes a plain
  SHA-256, is refused. The key, not a check of each value against a fresh evaluation, is what makes
  the values trusted: a fresh evaluation needs the derivation and code generation that the cache is
  there to save (seconds per system, in every process), while whoever can read the key can also edit
  the user's own files and the package itself;
- it was written by this version of the code that
  generates it: the tag holds the Python, NumPy, SciPy and SymPy versions and the SHA-256 of the
  sources of :mod:`symrmt.derive`, :mod:`symrmt.codegen` and :mod:`symrmt.models` (any change of
  them, or another package version, is a miss);
- its request names the model's derivation as well as its name (the module, function and arguments of
  its ``derive``: :func:`symrmt.models.model.Model.compiled`), so that another model registered under
  the same name in a later process never gets this one's entry;
- its counts and functions fit together (at most :data:`_MAX_COUNT` spectral averages, a residual and a
  start function wherever there are unknowns, an averages and a law function wherever there are averages);
- every symbol's name is one the package creates (:data:`symrmt.nonlinearity.serial.SYMBOL_NAME`);
- each function's source parses to the statements :func:`sympy.lambdify` writes and nothing else
  (:func:`symrmt.codegen.code_grammar.checked_source`): one ``def`` whose body assigns names and returns; its expressions are
  names, numbers, arithmetic, comparisons, lists, tuples, and calls of names; no attribute, import,
  subscript or other statement, no integer constant beyond 1024 bits and no power of constants that Python
  would evaluate at great cost (``10**10**10``); every name it reads is an argument, an earlier assignment, or a
  name of the recorded namespace, each of which must be that very attribute of NumPy,
  :mod:`scipy.special`, :mod:`functools` or :mod:`math` and only compute (a ufunc, a number, or one
  of the few array functions of :data:`symrmt.codegen.code_grammar.COMPUTING`: nothing that reads or writes files), or one of
  the back end's own :data:`~symrmt.codegen.numpy_backend.MODULES` translations.

Anything else (a truncated, edited or foreign file, another version, an unknown name) is a miss:
the file is deleted with a :class:`SystemCacheWarning` and the system derived and stored again. Writes
stay in the cache's folder: whatever has an entry's name (a link, dangling or not, a pipe) is replaced,
never written through.

Shipped entries
---------------
The package ships the entries of its built-in models' default requests in :data:`SHIPPED`
(written by ``python -m symrmt.models.shipped``, never edited by hand), so that a first call in a
fresh environment derives and generates nothing. A request is looked up in the user's cache, then
among the shipped entries (also when the user's cache is off: they are part of the package), then
derived (and stored in the user's cache). A shipped entry is
checked as a user's entry is (request, the grammar of every function), with a plain SHA-256 as its
checksum (it is package data, trusted as the package's code is), and its tag is
only :data:`FORMAT` and the SHA-256 of the sources (:func:`shipped_tag`): the user's library
versions differ from ours, and the generated code calls only NumPy and SciPy. Any change of the
derivation or code-generation sources makes every shipped entry a miss (never a wrong answer)
until they are regenerated; a refused shipped entry is a miss with a warning, never deleted.
The checksum protects against corruption, not against someone who can write the user's cache
folder and recompute it; what such a file can run is still limited to the grammar above.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import hmac
import importlib
import inspect
import json
import linecache
import math
import os
import pathlib
import sys
import warnings
from typing import Any, Callable, Iterator

import numpy as np
import sympy as sp

from .code_grammar import Refused as _Refused
from .code_grammar import checked_source, computes_only
from .numba_backend import pointwise_kernel
from ..errors import printable
from ..lambdify import MODULES
from ..nonlinearity.serial import SYMBOL_NAME
from ..runtime.cache_dir import cache_root, signature, signing_key, untrusted
from ..runtime.files import read_cache_file, write_text_atomically
from ..solve.compiled import CompiledObservable, CompiledSystem

__all__ = ["SystemCacheWarning", "SystemSummary", "compiled", "summary", "FORMAT", "SHIPPED", "shipped_tag",
           "shipped_name"]

#: Bump when the layout of an entry changes: older entries are then never matched.
FORMAT = 2
_MAX_BYTES = 20_000_000
_MAX_COUNT = 1000          # spectral averages of one system (the built-in ones have at most 12)
#: The entries shipped with the package (package data written by ``python -m symrmt.models.shipped``).
SHIPPED = pathlib.Path(__file__).resolve().parent / "shipped_systems"
#: The modules whose attributes generated code may call, by the name it calls them.
_MODULES = ("numpy", "scipy.special", "numpy.linalg", "functools", "math", "builtins")
_TRANSLATIONS = "symrmt.codegen.numpy_backend:MODULES"
_FUNCTIONS = ("law_function", "fixed_point_function", "residual_function", "averages_function", "start_function",
              "initial_function", "branch_function")
_unusable: set[str] = set()


class SystemCacheWarning(UserWarning):
    """An entry of the compiled-system cache was refused (and deleted), or the cache is unusable."""


class SystemSummary:
    """What the theory layer reads of a derived system: name, parameters and domains, unknowns, observables."""

    def __init__(self, name: str, parameters: tuple, domains: dict, unknowns: tuple, observables: tuple) -> None:
        self.name, self.parameters, self.domains = name, parameters, domains
        self.unknowns, self.observables = unknowns, observables

    @classmethod
    def of(cls, system) -> "SystemSummary":
        from .calculus import parameter_domains  # heavy: SymPy

        return cls(system.name, tuple(system.parameters), parameter_domains(system), tuple(system.unknowns),
                   tuple(system.observables))


# ----------------------------------------------------------------------------------------------- the key


@functools.lru_cache(maxsize=1)
def _sources() -> str:
    """The SHA-256 of the sources of derive, codegen and models: what derives a system and generates its code."""
    root = pathlib.Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in ("derive", "codegen", "models"):
        for path in sorted((root / package).glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def _tag() -> dict[str, str]:
    """The versions of what generated a user's entry: the libraries and the sources of derive, codegen and models."""
    import scipy  # heavy: SciPy

    return {"python": sys.version, "numpy": np.__version__, "scipy": scipy.__version__, "sympy": sp.__version__,
            "sources": _sources()}


def shipped_tag() -> dict[str, Any]:
    """The format and tag of a shipped entry: :data:`FORMAT` and the sources' SHA-256, no library version."""
    return {"format": FORMAT, "tag": {"sources": _sources()}}


def shipped_name(request: dict) -> str:
    """The file name of ``request``'s shipped entry, e.g. ``compiled-attention-rank1-algebraic.json``."""
    name = "-".join([str(request.get("kind")), str(request.get("model")), f"rank{request.get('rank')}",
                     str(request.get("form"))] + (["without-linear-part"] if request.get("without_linear_part") else []))
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) + ".json"


def _folder() -> pathlib.Path | None:
    try:
        root = cache_root()
    except (RuntimeError, KeyError, OSError):
        return None
    if root is None or str(root) in _unusable:
        return None
    return root / "systems"


def _path(folder: pathlib.Path, request: dict) -> pathlib.Path:
    tag = json.dumps({"format": FORMAT, **_tag(), **request}, sort_keys=True)
    return folder / (hashlib.sha256(tag.encode()).hexdigest()[:40] + ".json")


def _checksum(body: dict, key: bytes | None = None) -> str:
    """The SHA-256 of ``body`` (a shipped entry), or its HMAC-SHA-256 under ``key`` (a user's entry)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest() if key is None else signature(key, text)


def _key() -> bytes | None:
    """The private key of the user's cache, or None (cache off or untrusted: nothing is read from it)."""
    try:
        root = cache_root()
    except (RuntimeError, KeyError, OSError):
        return None
    return None if root is None or str(root) in _unusable else signing_key(root)


# ------------------------------------------------------------------------------------------ public entry points


def compiled(request: dict, build: Callable[[], CompiledSystem]) -> CompiledSystem:
    """The compiled system of ``request`` (a JSON-able dict naming model, rank, form), from disk or ``build()``.

    ``build`` is called on a miss (no entry, the cache off, or an entry refused) and its result stored
    when every function can be written as checked data (else it is only returned)."""
    for path, entry in _entries({**request, "kind": "compiled"}):
        try:
            return _system_from(entry)
        except _Refused as exc:
            _discard(path, str(exc))
    system = build()
    _store({**request, "kind": "compiled"}, lambda: _system_to(system))
    return system


def summary(request: dict, build: Callable[[], Any]) -> SystemSummary:
    """The :class:`SystemSummary` of the derived system of ``request``, from disk or of ``build()`` (the system)."""
    for path, entry in _entries({**request, "kind": "summary"}):
        try:
            symbols = _symbols(entry["symbols"])
            return SystemSummary(_text(entry["name"]), _keys(entry["parameters"], symbols),
                                 _domains(entry["domains"], symbols), _keys(entry["unknowns"], symbols),
                                 _keys(entry["observables"], symbols))
        except (KeyError, TypeError, ValueError, RecursionError) as exc:
            _discard(path, str(exc) or type(exc).__name__)
    made = SystemSummary.of(build())
    _store({**request, "kind": "summary"}, lambda: _summary_to(made))
    return made


# ------------------------------------------------------------------------------------------------ reading


def _entries(request: dict) -> Iterator[tuple[pathlib.Path, dict]]:
    """``(path, data)`` of the user's entry of ``request``, then of the shipped one (each read only when asked for)."""
    folder = _folder()
    key = None if folder is None else _key()
    places = [] if key is None else [(_path(folder, request), {"format": FORMAT, "tag": _tag()})]
    if places and os.path.isdir(folder):
        why = untrusted(folder, folder=True)
        if why is not None:
            _warn_folder(folder, why)
            places = []
    for path, tag in [*places, (SHIPPED / shipped_name(request), shipped_tag())]:
        try:
            data = _read(path, request, tag, None if _shipped(path) else key)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
            _discard(path, str(exc)[:200] or type(exc).__name__)
            continue
        if data is not None:
            yield path, data


def _warn_folder(folder: pathlib.Path, why: str) -> None:
    if str(folder) not in _unusable:
        _unusable.add(str(folder))
        warnings.warn(f"symrmt: the compiled-system cache {printable(str(folder))[:200]!r} {why}: not used (derived "
                      "in this process instead)", SystemCacheWarning, stacklevel=4)


def _read(path: pathlib.Path, request: dict, tag: dict, key: bytes | None) -> dict | None:
    """The data of the entry at ``path``: None if there is none (or a shipped one is stale), :class:`_Refused` if bad.

    ``key``: the user's cache key, whose HMAC the entry's checksum must be; None for a shipped entry (SHA-256)."""
    raw = read_cache_file(path, _MAX_BYTES)
    if raw is None:
        return None
    if key is not None:
        why = untrusted(path, folder=False)
        if why is not None:
            raise _Refused(f"the file {why}")
    entry = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    if not isinstance(entry, dict):
        raise _Refused("not an entry of this cache")
    body = {k: v for k, v in entry.items() if k != "checksum"}
    if not isinstance(entry.get("checksum"), str) or not hmac.compare_digest(entry["checksum"], _checksum(body, key)):
        raise _Refused("checksum mismatch")
    if {"format": entry.get("format"), "tag": entry.get("tag")} != tag:
        if _shipped(path):
            return None                                   # derived by other sources: regenerated before a release
        raise _Refused("written by another version")
    if entry.get("request") != request or not isinstance(entry.get("data"), dict):
        raise _Refused("stored for another request")
    return entry["data"]


def _refuse_constant(name: str):
    raise _Refused(f"non-finite number {name} in JSON")


def _shipped(path: pathlib.Path) -> bool:
    return path.parent == SHIPPED


def _discard(path: pathlib.Path, reason: str) -> None:
    if _shipped(path):
        warnings.warn(f"symrmt: refused the shipped compiled-system entry {path.name!r} ({printable(reason)[:200]}); "
                      "deriving the system (regenerate them with: python -m symrmt.models.shipped)", SystemCacheWarning,
                      stacklevel=3)
        return
    warnings.warn(f"symrmt: discarded the compiled-system cache entry {printable(str(path))[:200]!r} "
                  f"({printable(reason)[:200]}); deriving the system again", SystemCacheWarning, stacklevel=3)
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def _text(value: Any) -> str:
    if not isinstance(value, str) or len(value) > 200 or not value.isprintable():
        raise _Refused("a name is not one line of printable text")
    return value


def _symbols(data: Any) -> dict[str, sp.Symbol]:
    """``{name: Symbol}`` from ``{name: {assumption: bool}}``."""
    if not isinstance(data, dict):
        raise _Refused("malformed symbols")
    out = {}
    for name, assumptions in data.items():
        if not (isinstance(name, str) and SYMBOL_NAME.fullmatch(name) and isinstance(assumptions, dict)
                and all(isinstance(k, str) and k.isidentifier() and isinstance(v, bool)
                        for k, v in assumptions.items())):
            raise _Refused(f"malformed symbol {printable(str(name)[:40])!r}")
        try:
            out[name] = sp.Symbol(name, **assumptions)
        except (TypeError, ValueError, AttributeError) as exc:
            raise _Refused(f"symbol {name[:40]!r}: {exc}") from None
    return out


def _keys(names: Any, symbols: dict) -> tuple:
    if not isinstance(names, list) or not all(isinstance(n, str) and n in symbols for n in names):
        raise _Refused("a key is not among the symbols")
    return tuple(symbols[n] for n in names)


def _domains(data: Any, symbols: dict) -> dict:
    if not isinstance(data, dict):
        raise _Refused("malformed domains")
    out = {}
    for name, value in data.items():
        if name not in symbols or not (isinstance(value, list) and len(value) == 4):
            raise _Refused("malformed domain")
        lower, upper = float(_text(value[0])), float(_text(value[1]))
        if not (isinstance(value[2], bool) and isinstance(value[3], bool)) or math.isnan(lower) or math.isnan(upper):
            raise _Refused("malformed domain")
        out[symbols[name]] = (lower, upper, value[2], value[3])
    return out


def _namespace(data: Any) -> dict[str, Any]:
    """The names generated code may call: each must be that attribute of one of :data:`_MODULES` or a translation."""
    if not isinstance(data, dict):
        raise _Refused("malformed namespace")
    out = {}
    for name, origin in data.items():
        if not (isinstance(name, str) and name.isidentifier() and not name.startswith("__")):
            raise _Refused(f"name {str(name)[:40]!r}")
        if origin == _TRANSLATIONS and name in MODULES[0]:
            out[name] = MODULES[0][name]
        elif origin in _MODULES:
            value = getattr(importlib.import_module(origin), name, None)
            if not computes_only(name, value):
                raise _Refused(f"name {name!r} of {origin} is not a function that only computes")
            out[name] = value
        else:
            raise _Refused(f"name {name!r} from {str(origin)[:40]!r}")
    return out


def _function(data: Any, label: str) -> Callable | None:
    """A generated function rebuilt from checked data (its source kept in :mod:`linecache` for the kernels)."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise _Refused(f"{label}: malformed")
    namespace = _namespace(data.get("namespace"))
    source = data.get("source")
    tree = checked_source(source, namespace)
    filename = f"<symrmt cached {hashlib.sha256(source.encode()).hexdigest()[:16]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = dict(namespace)
    exec(compile(tree, filename, "exec"), scope)     # noqa: S102 - checked above: lambdify's grammar, known names only
    return scope[tree.body[0].name]


def _counts(data: dict) -> tuple[int, int]:
    """``(averages_count, fixed_point_averages_count)``, checked to fit the functions the entry holds."""
    functions = data["functions"]
    if not isinstance(functions, dict):
        raise _Refused("malformed functions")
    counts = data["averages_count"], data["fixed_point_averages_count"]
    if not all(type(c) is int and 0 <= c <= _MAX_COUNT for c in counts) or counts[1] > counts[0]:
        raise _Refused(f"average counts {str(counts)[:60]} are not 0 <= fixed-point <= all <= {_MAX_COUNT}")
    missing = [slot for slot, needed in (("residual_function", bool(data["unknowns"])),
                                         ("start_function", bool(data["unknowns"])),
                                         ("averages_function", counts[0] > 0), ("law_function", counts[0] > 0),
                                         ("fixed_point_function", counts[1] > 0)) if needed and not functions.get(slot)]
    if missing:
        raise _Refused(f"no {missing[0]} where the system needs one")
    return counts


def _system_from(data: dict) -> CompiledSystem:
    symbols = _symbols(data.get("symbols"))
    try:
        averages_count, fixed_point_averages_count = _counts(data)
        functions = {slot: _function(data["functions"].get(slot), slot) for slot in _FUNCTIONS}
        observables = []
        for item in data["observables"]:
            value, rate = _function(item["value"], "observable"), _function(item.get("rate"), "rate")
            natives = item["natives"]
            observables.append(CompiledObservable(
                _keys([item["key"]], symbols)[0], _text(item["kind"]), int(item["size"]), bool(item["real"]), value,
                rate, pointwise_kernel(value, int(natives[0])) if natives[0] else None,
                pointwise_kernel(rate, int(natives[1])) if natives[1] and rate is not None else None))
        admissible = {_keys([k], symbols)[0]: (_function(v[0], "admissible"), _text(v[1]))
                      for k, v in data["admissible"].items()}
        natives = data["natives"]
        return CompiledSystem(
            name=_text(data["name"]), parameters=_keys(data["parameters"], symbols),
            domains=_domains(data["domains"], symbols), unknowns=_keys(data["unknowns"], symbols),
            complex=bool(data["complex"]), variable=_keys([data["variable"]], symbols)[0],
            predictor=_text(data["predictor"]), law=None if data["law"] is None else _text(data["law"]),
            law_function=functions["law_function"], law_keywords=tuple(_text(k) for k in data["law_keywords"]),
            averages_count=averages_count, fixed_point_averages_count=fixed_point_averages_count,
            fixed_point_function=functions["fixed_point_function"], residual_function=functions["residual_function"],
            averages_function=functions["averages_function"], observables=tuple(observables),
            start_function=functions["start_function"], initial_function=functions["initial_function"],
            branch=tuple(_text(b) for b in data["branch"]), branch_function=functions["branch_function"],
            admissible=admissible,
            residual_native=pointwise_kernel(functions["residual_function"], int(natives[0])) if natives[0] else None,
            branch_native=pointwise_kernel(functions["branch_function"], int(natives[1])) if natives[1] else None)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, RecursionError) as exc:
        if isinstance(exc, _Refused):
            raise
        raise _Refused(f"malformed system ({type(exc).__name__}: {str(exc)[:80]})") from None


# ------------------------------------------------------------------------------------------------ writing


class _NotData(Exception):
    """Something of a compiled system that cannot be written as checked data (the system is then not stored)."""


def entry_text(request: dict, data: dict, tag: dict, indent: int | None = None, key: bytes | None = None) -> str:
    """An entry's file content: ``tag`` (``{"format": ..., "tag": ...}``), request, data and their checksum.

    The checksum is of the compact JSON of the rest, whatever ``indent`` lays the file out with: its SHA-256
    (a shipped entry), or its HMAC-SHA-256 under ``key`` (a user's entry)."""
    body = {**tag, "request": request, "data": data}
    return json.dumps({**body, "checksum": _checksum(body, key)}, sort_keys=True, indent=indent,
                      separators=(",", ": ") if indent is not None else (",", ":"))


def _store(request: dict, data: Callable[[], dict]) -> None:
    folder = _folder()
    key = None if folder is None else _key()
    if key is None or str(folder) in _unusable:
        return
    try:
        text = entry_text(request, data(), {"format": FORMAT, "tag": _tag()}, key=key)
    except _NotData:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        why = untrusted(folder, folder=True)
        if why is not None:
            _warn_folder(folder, why)
            return
        write_text_atomically(_path(folder, request), text, follow=False)   # a link named as the entry is replaced
    except OSError as exc:
        _unusable.add(str(cache_root()))
        warnings.warn(f"symrmt: the compiled-system cache is off: cannot write in {str(folder)[:200]!r} ({exc}); set "
                      "SYMRMT_CACHE_DIR to a writable folder, or to 'off'", SystemCacheWarning, stacklevel=3)


def _summary_to(made: SystemSummary) -> dict:
    keys = (*made.parameters, *made.unknowns, *made.observables)
    return {"name": made.name, "symbols": _symbols_to(keys), "parameters": [k.name for k in made.parameters],
            "domains": {k.name: _domain_to(v) for k, v in made.domains.items()},
            "unknowns": [k.name for k in made.unknowns], "observables": [k.name for k in made.observables]}


def _symbols_to(keys) -> dict:
    out = {}
    for key in keys:
        if type(key) is not sp.Symbol or out.get(key.name, key.assumptions0) != key.assumptions0:
            raise _NotData(f"the key {key!r} is not a plain symbol")
        out[key.name] = dict(key.assumptions0)
    return out


def _domain_to(domain: tuple) -> list:
    lower, upper, lower_open, upper_open = domain
    return [repr(float(lower)), repr(float(upper)), bool(lower_open), bool(upper_open)]


def _function_to(function: Callable | None) -> dict | None:
    """A generated function as data: its source and where each name it calls comes from."""
    if function is None:
        return None
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        raise _NotData("no source") from None
    scope = function.__globals__
    namespace = {}
    arguments = set(inspect.signature(function).parameters)
    for name in _read_names(source) - arguments:
        if name not in scope:
            continue                                  # a local assignment of the function
        value = scope[name]
        if name in MODULES[0] and MODULES[0][name] is value:
            namespace[name] = _TRANSLATIONS
            continue
        for module in _MODULES:
            if getattr(importlib.import_module(module), name, None) is value and computes_only(name, value):
                namespace[name] = module
                break
        else:
            raise _NotData(f"the name {name} is not of a known module")
    try:
        checked_source(source, {**namespace, **{n: None for n in _assigned(source)}})
    except _Refused as exc:
        raise _NotData(str(exc)) from None
    return {"source": source, "namespace": namespace}


def _read_names(source: str) -> set[str]:
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}


def _assigned(source: str) -> set[str]:
    return {t.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Name)}


def _natives(kernel) -> int:
    return 0 if kernel is None else int(kernel.outputs)


def _system_to(system: CompiledSystem) -> dict:
    keys = (*system.parameters, *system.unknowns, *(o.key for o in system.observables), *system.admissible)
    return {
        "name": system.name, "symbols": _symbols_to(keys), "parameters": [k.name for k in system.parameters],
        "domains": {k.name: _domain_to(v) for k, v in system.domains.items()},
        "unknowns": [k.name for k in system.unknowns], "complex": bool(system.complex),
        "variable": system.variable.name, "predictor": system.predictor, "law": system.law,
        "law_keywords": list(system.law_keywords), "averages_count": int(system.averages_count),
        "fixed_point_averages_count": int(system.fixed_point_averages_count),
        "functions": {slot: _function_to(getattr(system, slot)) for slot in _FUNCTIONS},
        "observables": [{"key": o.key.name, "kind": o.kind, "size": int(o.size), "real": bool(o.real),
                         "value": _function_to(o.value), "rate": _function_to(o.rate),
                         "natives": [_natives(o.value_native), _natives(o.rate_native)]} for o in system.observables],
        "admissible": {k.name: [_function_to(fn), accuracy] for k, (fn, accuracy) in system.admissible.items()},
        "branch": list(system.branch), "natives": [_natives(system.residual_native), _natives(system.branch_native)],
    }
