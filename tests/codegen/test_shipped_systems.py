"""The compiled systems shipped with the package: current, the very numbers of a fresh derivation, checked as data."""
from __future__ import annotations

import ast
import inspect
import json
import shutil
import warnings

import numpy as np
import pytest

from symrmt import models
from symrmt.codegen import compile_system, system_cache
from symrmt.models import shipped

from .test_system_cache import FORGERIES, forged_start

COMPILED = [r for r in shipped.requests() if r["kind"] == "compiled"]
SUMMARIES = [r for r in shipped.requests() if r["kind"] == "summary"]
RNG_SEED = 20261203


def _label(request: dict) -> str:
    return system_cache.shipped_name(request).removesuffix(".json")


@pytest.fixture()
def user_cache(tmp_path, monkeypatch):
    """An empty user cache: a request is answered by the shipped entry or derived."""
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path / "cache"))
    system_cache._unusable.clear()
    return tmp_path


def _shipped_system(request: dict):
    """The system the package answers ``request`` with from its shipped entry (a derivation here fails the test)."""
    key = {k: v for k, v in request.items() if k != "kind"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", system_cache.SystemCacheWarning)
        return system_cache.compiled(key, lambda: pytest.fail(f"{_label(request)}: the shipped entry was not used"))


def _fresh_system(request: dict):
    model = models.get(request["model"])
    return compile_system(model.system(request["rank"], request["form"], request["without_linear_part"]))


def _functions(system) -> dict:
    """Every generated function of a compiled system, by a stable label."""
    out = {slot: getattr(system, slot) for slot in system_cache._FUNCTIONS}
    for observable in system.observables:
        out[f"value {observable.key}"], out[f"rate {observable.key}"] = observable.value, observable.rate
    for key, (function, _) in system.admissible.items():
        out[f"admissible {key}"] = function
    return {label: f for label, f in out.items() if f is not None}


def _differences(shipped_system, fresh_system, points: int = 4) -> list[str]:
    """The functions whose values differ beyond 1e-12 relative at random points, and those never finite there."""
    rng = np.random.default_rng(RNG_SEED)
    ours, theirs = _functions(shipped_system), _functions(fresh_system)
    if ours.keys() != theirs.keys():
        return [f"functions {sorted(ours)} != {sorted(theirs)}"]
    found = []
    for label, function in theirs.items():
        size = len(inspect.signature(function).parameters)
        finite = False
        for _ in range(points):
            # positive arguments of order one: inside every model's parameter domain and away from branch points
            arguments = rng.uniform(0.3, 2.5, size)
            with np.errstate(all="ignore"):
                expected = np.asarray(function(*arguments), dtype=complex)
                got = np.asarray(ours[label](*arguments), dtype=complex)
            finite |= bool(np.isfinite(expected).any())
            # 1e-12 relative: the same expressions evaluated in the same order agree to rounding, far below this
            if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True):
                found.append(label)
                break
        else:
            if not finite:
                found.append(f"{label} (never finite: the comparison would prove nothing)")
    return found


def test_the_shipped_entries_are_current():
    stale = shipped.stale()
    assert not stale, (f"the shipped compiled systems are stale ({', '.join(stale)}): the derive, codegen or models "
                       f"sources changed since they were written; regenerate them with `{shipped.COMMAND}` and commit "
                       "symrmt/codegen/shipped_systems/")


@pytest.mark.parametrize("request_", COMPILED, ids=_label)
def test_each_shipped_system_gives_the_numbers_of_a_fresh_derivation(user_cache, request_):
    assert _differences(_shipped_system(request_), _fresh_system(request_)) == []


@pytest.mark.parametrize("request_", SUMMARIES, ids=_label)
def test_each_shipped_summary_is_the_derived_systems(user_cache, request_):
    key = {k: v for k, v in request_.items() if k != "kind"}
    got = system_cache.summary(key, lambda: pytest.fail("the shipped entry was not used"))
    system = models.get(request_["model"]).system(request_["rank"])
    assert (got.name, got.parameters, got.unknowns, got.observables) == \
        (system.name, tuple(system.parameters), tuple(system.unknowns), tuple(system.observables))
    assert got.domains == system_cache.SystemSummary.of(system).domains


def _planted(folder, request: dict, change) -> None:
    """Change the data of ``request``'s entry copied into ``folder`` and recompute its checksum (a forger's edit)."""
    path = folder / system_cache.shipped_name(request)
    entry = json.loads(path.read_text())
    change(entry["data"])
    body = {k: v for k, v in entry.items() if k != "checksum"}
    path.write_text(json.dumps({**body, "checksum": system_cache._checksum(body)}))


@pytest.fixture()
def copied(user_cache, monkeypatch):
    """A copy of the shipped entries, read in their stead."""
    folder = user_cache / "shipped"
    shutil.copytree(system_cache.SHIPPED, folder)
    monkeypatch.setattr(system_cache, "SHIPPED", folder)
    return folder


LINEAR = next(r for r in COMPILED if r["model"] == "linear" and r["form"] == "quadrature")
ATTENTION = next(r for r in COMPILED if r["model"] == "attention" and r["form"] == "algebraic")


def test_a_changed_constant_with_a_valid_checksum_is_caught_by_the_numbers(copied):
    """The checksum is recomputable and the edit is within the grammar: the numbers test must catch it."""
    def plant(data):
        function = data["functions"]["residual_function"]
        tree = ast.parse(function["source"])
        constant = next(n for n in ast.walk(tree) if isinstance(n, ast.Constant)
                        and isinstance(n.value, (int, float)) and n.value not in (0, 1))
        constant.value = constant.value * (1 + 1e-9)
        function["source"] = ast.unparse(tree) + "\n"

    _planted(copied, ATTENTION, plant)
    assert _differences(_shipped_system(ATTENTION), _fresh_system(ATTENTION)) == ["residual_function"]


@pytest.mark.parametrize("name", FORGERIES)
def test_a_forged_shipped_entry_is_refused_by_the_grammar_and_kept(copied, name):
    """A shipped entry outside lambdify's grammar is a miss (derived instead) with a warning; package data stays."""
    code, reason = FORGERIES[name]

    _planted(copied, LINEAR, forged_start(code))
    key = {k: v for k, v in LINEAR.items() if k != "kind"}
    calls = []
    with pytest.warns(system_cache.SystemCacheWarning, match=reason):
        system_cache.compiled(key, lambda: calls.append(1) or _fresh_system(LINEAR))
    assert calls == [1] and (copied / system_cache.shipped_name(LINEAR)).is_file()


def test_a_shipped_entry_of_other_sources_is_a_silent_miss(copied, monkeypatch):
    """After a change of the derivation code the shipped entries are never used (until regenerated), and say so."""
    monkeypatch.setattr(system_cache, "_sources", lambda: "other sources")
    key = {k: v for k, v in LINEAR.items() if k != "kind"}
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", system_cache.SystemCacheWarning)
        system_cache.compiled(key, lambda: calls.append(1) or _fresh_system(LINEAR))
    assert calls == [1]
    assert system_cache.shipped_name(LINEAR) in shipped.stale(copied)


def test_the_shipped_tag_names_no_library_version():
    entry = json.loads((system_cache.SHIPPED / system_cache.shipped_name(LINEAR)).read_text())
    assert entry["tag"] == {"sources": system_cache._sources()} and entry["format"] == system_cache.FORMAT
