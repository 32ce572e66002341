"""The disk cache of compiled systems: a hit solves exactly as the derivation does; anything not ours is refused."""
from __future__ import annotations

import json

import numpy as np
import pytest

from symrmt import models
from symrmt.codegen import compile_system, system_cache
from symrmt.derive import linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR
from symrmt.solve import solve

REQUEST = {"model": "linear", "rank": 1, "form": "quadrature", "without_linear_part": False}
POINTS = {S.c: np.array([0.5, 1.0, 3.0]), S.gamma: np.array([0.1, 1.0, 2.0]), S.theta: np.array([0.0, 1.0, 2.0])}


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(system_cache, "SHIPPED", tmp_path / "nothing shipped")  # the user's cache alone
    system_cache._unusable.clear()
    return tmp_path / "systems"


def _built():
    return compile_system(linear_system())


def _load():
    """What a new process gets: the entry on disk (a build here would be a miss)."""
    return system_cache.compiled(REQUEST, lambda: pytest.fail("derived again: the entry was not used"))


def _rewrite(folder, change) -> None:
    """Change an entry's data and recompute its checksum under the cache's key (a forger who knows the format and
    can read the key: the grammar must still hold what may run)."""
    (path,) = folder.glob("*.json")
    entry = json.loads(path.read_text())
    change(entry["data"])
    body = {k: v for k, v in entry.items() if k != "checksum"}
    path.write_text(json.dumps({**body, "checksum": system_cache._checksum(body, system_cache._key())}))


def test_a_stored_system_solves_bit_for_bit_as_the_derived_one(folder):
    built = system_cache.compiled(REQUEST, _built)
    loaded = _load()
    assert loaded is not built and loaded.parameters == built.parameters and loaded.domains == built.domains
    assert [o.key for o in loaded.observables] == [o.key for o in built.observables]
    for system in (built, loaded):
        assert np.array_equal(solve(system, POINTS)[ERROR], solve(built, POINTS)[ERROR])


def test_the_summary_is_the_derived_systems(folder):
    system = linear_system()
    made = system_cache.summary(REQUEST, lambda: system)
    again = system_cache.summary(REQUEST, lambda: pytest.fail("derived again"))
    assert (again.name, again.parameters, again.unknowns, again.observables) == \
        (system.name, tuple(system.parameters), tuple(system.unknowns), tuple(system.observables))
    assert again.domains == made.domains


def test_the_off_switch_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")
    monkeypatch.setattr(system_cache, "SHIPPED", tmp_path / "nothing shipped")
    system_cache.compiled(REQUEST, _built)
    assert not list(tmp_path.iterdir())


def test_a_corrupt_entry_is_refused_and_rebuilt(folder):
    system_cache.compiled(REQUEST, _built)
    (path,) = folder.glob("*.json")
    path.write_text(path.read_text().replace("gamma", "gammb", 1))
    with pytest.warns(system_cache.SystemCacheWarning, match="checksum mismatch"):
        system_cache.compiled(REQUEST, _built)
    _load()                                                     # stored again


FORGERIES = {
    "an import through an attribute": ("__import__('os').system('true')", "Attribute|unknown name"),
    "a call of a name outside the namespace": ("open('/etc/passwd')", "unknown name"),
    "a dunder name": ("__builtins__", "unknown name"),
    "a subscript": ("x0[0]", "Subscript"),
    "a lambda": ("(lambda: 0)()", "Lambda"),
}


def forged_start(code: str):
    """A change to an entry's data that puts ``x0 = code`` at the top of its start function's body."""
    def forge(data):
        function = data["functions"]["start_function"]
        lines = function["source"].splitlines()
        lines.insert(1, f"    x0 = {code}")
        function["source"] = "\n".join(lines) + "\n"
    return forge


@pytest.mark.parametrize("name", FORGERIES)
def test_source_outside_lambdifys_grammar_is_refused_even_with_a_valid_checksum(folder, name):
    """The checksum is recomputable: what may run is held by the grammar check, which must catch each forgery."""
    system_cache.compiled(REQUEST, _built)
    code, reason = FORGERIES[name]

    _rewrite(folder, forged_start(code))
    with pytest.warns(system_cache.SystemCacheWarning, match=reason):
        system_cache.compiled(REQUEST, _built)


def test_a_namespace_name_must_be_that_attribute_of_an_allowed_module(folder):
    system_cache.compiled(REQUEST, _built)

    def forge(data):
        data["functions"]["start_function"]["namespace"]["system"] = "os"

    _rewrite(folder, forge)
    with pytest.warns(system_cache.SystemCacheWarning, match="from 'os'"):
        system_cache.compiled(REQUEST, _built)


@pytest.mark.parametrize("name", ["save", "load", "fromfile"])
def test_a_numpy_function_that_does_more_than_compute_is_refused(folder, name):
    """numpy.save is an attribute of NumPy, but it writes files: the namespace takes only what computes."""
    system_cache.compiled(REQUEST, _built)

    def forge(data):
        function = data["functions"]["start_function"]
        function["namespace"][name] = "numpy"
        lines = function["source"].splitlines()
        lines.insert(1, f"    x0 = {name}('/tmp/x')")
        function["source"] = "\n".join(lines) + "\n"

    _rewrite(folder, forge)
    with pytest.warns(system_cache.SystemCacheWarning, match="only computes"):
        system_cache.compiled(REQUEST, _built)


def test_an_entry_of_another_version_is_not_used(folder, monkeypatch):
    system_cache.compiled(REQUEST, _built)
    (path,) = folder.glob("*.json")
    monkeypatch.setattr(system_cache, "_tag", lambda: {**json.loads(path.read_text())["tag"], "sources": "other"})
    calls = []
    system_cache.compiled(REQUEST, lambda: calls.append(1) or _built())
    assert calls == [1]                                        # another key: derived, not read


def test_a_model_registered_from_outside_is_never_read_from_disk(folder):
    """Its derivation is not among the sources the tag hashes: a stale entry could not be told apart."""
    model = models.register(models.Model("outside_model", "a test model", lambda rank, form: linear_system(),
                                         models.LINEAR.read, auto_form="quadrature"))
    try:
        model.compiled(1, "quadrature")
        assert not folder.exists() or not list(folder.glob("*.json"))
    finally:
        models.unregister(model.name)
