"""The background search for closed forms: the first answer does not wait for SymPy, a detached process writes what
SymPy finds into the disk cache (atomically, once per f at a time, never a worse entry), and a later call prints it.

tests/conftest.py switches the search off for the suite (``SYMRMT_BACKGROUND_SEARCH=0``); these tests switch it on
with a cache folder of their own, and the one that starts a process waits for it to finish.
"""
from __future__ import annotations

import json
import os
import pathlib
import time

import pytest
import sympy as sp

from symrmt.nonlinearity import api, background, cache, hermite, parametric_cache
from symrmt.nonlinearity.parse import parse_nonlinearity

#: SymPy integrates |x| over the two half-lines in well under a second; the background process also pays the
#: interpreter's start and its imports (2 s) at niceness 10: 120 s holds at a load of 20 on 2 cores.
WAIT = 120.0
F = "Abs(x) + x/3"          # not a polynomial, no parity: only a_1 = 0 + 1/3 needs no integration; SymPy finds all four


@pytest.fixture
def searching(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(background.ENVIRONMENT, "1")
    api._hermite_cached.cache_clear()
    api._parametric_cached.cache_clear()
    background._announced.clear()
    yield tmp_path
    api._hermite_cached.cache_clear()
    api._parametric_cached.cache_clear()


def _children_states() -> list[str]:
    """The state letters of this process's children (``Z`` for a zombie)."""
    states = []
    for task in pathlib.Path(f"/proc/{os.getpid()}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                states.append(pathlib.Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0])
            except OSError:
                pass
    return states


def _wait_for(path: pathlib.Path) -> float:
    """The ``searched`` of the entry at ``path`` once the background search wrote it (fails after WAIT seconds)."""
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        if cache.searched_in(path) >= background.BUDGET:
            return cache.searched_in(path)
        time.sleep(0.5)
    pytest.fail(f"the background search did not write {path} within {WAIT} s")


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads /proc")
def test_the_first_answer_does_not_wait_and_a_later_call_has_the_closed_forms(searching, capsys):
    start = time.monotonic()
    first = hermite(F)
    elapsed = time.monotonic() - start
    # the foreground computes the float64 quadrature only (0.1 s); 10 s holds on a loaded machine, and a foreground
    # that waited for SymPy would still pass it, so the sources below are what shows it did not
    assert elapsed < 10.0, elapsed
    # a_1 comes term by term at once (|x| is even, x/3 a polynomial); the rest needed SymPy, which was not waited for
    assert first.source == {"a0": "numeric", "a1": "exact", "a2": "numeric", "nu": "numeric"}
    assert "being searched in the background" in capsys.readouterr().err
    assert "Z" not in _children_states()                 # the shell that forked the search was reaped at once
    path = cache.entry_path(parse_nonlinearity(F), False, "auto")
    assert cache.searched_in(path) == 0.0                # the first answer's entry: nothing searched yet
    assert _wait_for(path) == background.COMPLETE        # SymPy found every datum
    api._hermite_cached.cache_clear()                     # as a new process: the disk has the closed forms
    later = hermite(F)
    assert later.exact == {"a0": sp.sqrt(2) / sp.sqrt(sp.pi), "a1": sp.Rational(1, 3), "a2": 1 / sp.sqrt(sp.pi),
                           "nu": sp.Rational(10, 9)}
    assert later.values == pytest.approx(first.values, rel=1e-13)
    assert "background" not in capsys.readouterr().err   # nothing left to search: no second process, no notice
    assert not list(searching.glob("hermite/.*.tmp"))      # atomic writes leave no temporary file


def test_a_search_that_runs_is_not_started_twice(searching, monkeypatch, capsys):
    """The lock of an entry held (a search running in another process): no second process, the notice still said."""
    expr = parse_nonlinearity(F)
    path = cache.entry_path(expr, False, "auto")
    started = []

    class Shell:                                          # records the start instead of forking
        def __init__(self, *args, **kwargs):
            started.append(args)

        def wait(self):
            return 0

    monkeypatch.setattr(background.subprocess, "Popen", Shell)
    with background._locked(background._lock_path(path)) as free:
        assert free
        assert background.start("hermite", expr, path, {"center": False})
    assert started == []
    assert "being searched" in capsys.readouterr().err
    assert background.start("hermite", expr, path, {"center": False})     # the lock free again: started
    assert len(started) == 1


def test_switched_off_the_first_answer_waits_as_before(searching, monkeypatch):
    monkeypatch.setenv(background.ENVIRONMENT, "0")
    assert not background.available()
    assert background.foreground_wait(None) == background.FALLBACK_WAIT
    assert background.foreground_wait(0.3) == 0.3
    monkeypatch.setenv(background.ENVIRONMENT, "1")
    assert background.available() and background.foreground_wait(None) == 0.0
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")           # nowhere to write: no search in the background
    assert not background.available()


def test_the_search_never_replaces_an_entry_with_more_closed_forms(searching):
    """A foreground call that waited longer stored more closed forms: the background's result (here a search with no
    time at all, so all numeric) is not written over it."""
    expr = parse_nonlinearity(F)
    hermite(F, timeout=60.0)                              # all four closed forms, stored
    path = cache.entry_path(expr, False, "auto")
    before = path.read_text()
    background._search_hermite({"f": background.to_srepr(expr), "center": False, "budget": 1e-9})
    assert path.read_text() == before
    background._search_hermite({"f": background.to_srepr(expr), "center": False, "budget": 60.0})
    assert json.loads(path.read_text())["searched"] == background.COMPLETE


def test_a_parametric_f_gets_its_closed_forms_from_the_background(searching, capsys):
    first = hermite("s*Abs(x)")
    assert first.source["a0"] == "numeric" and first.exact["a1"] == 0      # parity needs no search
    assert "being searched in the background" in capsys.readouterr().err
    expr = parse_nonlinearity("s*Abs(x)", ["s"])
    _wait_for(parametric_cache.entry_path(expr, "auto", None))
    api._parametric_cached.cache_clear()
    s = sp.Symbol("s", real=True)
    assert hermite("s*Abs(x)").exact["a0"] == sp.sqrt(2) * s / sp.sqrt(sp.pi)


def test_no_more_than_the_slots_run_at_once(searching, monkeypatch):
    """SLOTS searches running (their slot locks held): a new f starts no process; one slot free: it starts."""
    expr = parse_nonlinearity(F)
    path = cache.entry_path(expr, False, "auto")
    started = []
    monkeypatch.setattr(background.subprocess, "Popen", lambda *a, **k: started.append(a) or _Reaped())
    slots = background._slot_paths(path.parent)
    with background._locked(slots[0]), background._locked(slots[1]):
        assert background.start("hermite", expr, path, {"center": False}) is False
        assert started == []
        with background._slot(path.parent) as slot:        # the child's side: no slot either
            assert slot is False
    assert background.start("hermite", expr, path, {"center": False})
    assert len(started) == 1


class _Reaped:
    def wait(self):
        return 0


def test_the_linear_data_of_a_sum_come_term_by_term():
    """a_0, a_1, a_2 are linear in f: each term's closed form by a rule that needs no integration, added up; a term
    without one (tanh's a_1) leaves that datum to the search, and nu (not linear) is never taken this way."""
    from symrmt.nonlinearity.closed_forms import additive_exact
    from symrmt.nonlinearity.constants import X

    found = additive_exact(sp.tanh(2 * X) / 2 + X**2 / 4, ("a0", "a1", "a2", "nu"), time.monotonic() + 5)
    assert found == {"a0": sp.Rational(1, 4), "a2": sp.sqrt(2) / 4}
    assert additive_exact(sp.tanh(X), ("a0",), time.monotonic() + 5) == {}          # one term: nothing to split
    assert additive_exact(sp.Abs(X) + X / 3, ("a1",), time.monotonic() + 5) == {"a1": sp.Rational(1, 3)}
