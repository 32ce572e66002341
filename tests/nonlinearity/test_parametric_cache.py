"""The disk cache of the closed forms of an f with parameters: found again in a new process, refused when tampered."""
from __future__ import annotations

import json

import pytest
import sympy as sp

from symrmt.nonlinearity import api, cache, parametric, parametric_cache
from symrmt.nonlinearity.serial import to_srepr


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path))
    cache._unusable.clear()
    api._parametric_cached.cache_clear()
    yield tmp_path / "hermite"
    api._parametric_cached.cache_clear()


#: SymPy's wall-clock budget here: generous, so that the closed forms these tests need are found on a busy machine.
TIMEOUT = 30.0


def _fresh(formula="erf(s*x)", timeout=TIMEOUT):
    api._parametric_cached.cache_clear()          # as a new process: only the disk remembers
    return api.hermite(formula, timeout=timeout)


def _entry(folder):
    (path,) = folder.glob("parametric-*.json")
    return path, json.loads(path.read_text())


def test_closed_forms_are_found_again_without_searching(folder, monkeypatch):
    first = _fresh()
    assert first.source["a1"] == "table"
    monkeypatch.setattr(parametric, "_closed_forms", lambda *a: pytest.fail("searched again"))
    again = _fresh()
    assert again.exact == first.exact and again.source == first.source
    assert api.hermite("erf(s*x)", center=True, timeout=TIMEOUT).exact["a0"] == 0     # centering applies to loaded forms


def test_a_forged_closed_form_with_a_recomputed_checksum_is_refused(folder):
    _fresh()
    path, entry = _entry(folder)
    s = sp.Symbol("s", real=True)
    entry["result"]["a1"]["exact"] = to_srepr(2 * s / sp.sqrt(sp.pi * (1 + 3 * s**2)))   # a plausible wrong form
    body = {k: v for k, v in entry.items() if k != "checksum"}
    path.write_text(json.dumps({**body, "checksum": cache._checksum(body)}))
    with pytest.warns(cache.CacheWarning, match="a1: the stored closed form gives"):
        h = _fresh()
    assert sp.simplify(h.exact["a1"] - 2 * s / sp.sqrt(sp.pi * (1 + 2 * s**2))) == 0      # recomputed


def test_a_corrupt_entry_is_refused(folder):
    _fresh()
    path, entry = _entry(folder)
    path.write_text(path.read_text().replace('"table"', '"exact"', 1))
    with pytest.warns(cache.CacheWarning, match="checksum mismatch"):
        _fresh()
    assert parametric_cache.load(parametric.parse_nonlinearity("erf(s*x)", ["s"]),
                                 (sp.Symbol("s", real=True),), "auto", TIMEOUT) is not None  # rebuilt and stored


def test_a_kinked_f_is_checked_by_the_30_digit_quadrature(folder):
    # relu(x - s) has closed forms; at the probe points its kink defeats the float64 rules, so the check
    # on load falls back to mpmath and still accepts the true forms and refuses a forged one
    # SymPy's four integrals of relu(x - s) take seconds of CPU each: a wall-clock ceiling a loaded machine meets
    first = _fresh("relu(x - s)", timeout=120.0)
    assert first.exact["a1"] is not None
    assert _fresh("relu(x - s)", timeout=120.0).exact == first.exact
    path, entry = _entry(folder)
    s = sp.Symbol("s", real=True)
    entry["result"]["a1"]["exact"] = to_srepr(sp.erfc(s / sp.sqrt(2)) / 2 + s / 1000)
    body = {k: v for k, v in entry.items() if k != "checksum"}
    path.write_text(json.dumps({**body, "checksum": cache._checksum(body)}))
    with pytest.warns(cache.CacheWarning, match="a1: the stored closed form gives"):
        _fresh("relu(x - s)", timeout=120.0)
