"""The disk cache of Hermite data: checked JSON, tampering, races, unusable locations."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
import warnings

import pytest
import sympy as sp

from symrmt.nonlinearity import api, cache, hermite, parse_nonlinearity
from symrmt.nonlinearity.cache import CacheWarning
from symrmt.nonlinearity.constants import X


ROOT = pathlib.Path(__file__).resolve().parents[2]


#: A centered f whose Hermite data are all closed forms from the table (fast to rebuild).
F = "erf(x) + 1/2"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A fresh cache folder for this test, and no in-memory results from earlier tests."""
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_unusable", set())
    api._hermite_cached.cache_clear()
    yield tmp_path / "cache" / "hermite"
    api._hermite_cached.cache_clear()


def fresh(f, **options):
    """hermite(f) computed again from the disk cache (the in-memory cache is emptied first)."""
    api._hermite_cached.cache_clear()
    return hermite(f, **options)


def only_entry(folder: pathlib.Path) -> pathlib.Path:
    (entry,) = folder.glob("*.json")
    return entry


def rewrite(entry: pathlib.Path, change) -> None:
    """Apply ``change`` to the entry's JSON and store it with a correct checksum (a deliberate forgery)."""
    data = json.loads(entry.read_text())
    change(data)
    body = {k: v for k, v in data.items() if k != "checksum"}
    entry.write_text(json.dumps({**body, "checksum": cache._checksum(body)}))


def same(a, b) -> bool:
    return (a.f, a.a0, a.a1, a.a2, a.nu, a.exact, a.source, a.centered_by) == \
        (b.f, b.a0, b.a1, b.a2, b.nu, b.exact, b.source, b.centered_by)


def test_entry_is_checked_json_and_is_reused(folder):
    first = hermite(F, center=True)
    entry = only_entry(folder)
    data = json.loads(entry.read_text())
    assert data["request"]["f"] == sp.srepr(sp.erf(X) + sp.S.Half) and data["sympy"] == sp.__version__
    assert data["result"]["shift"] == "Rational(1, 2)" and len(data["checksum"]) == 64
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a good entry is read without any warning
        again = fresh(F, center=True)
    assert same(first, again) and again.centered_by == first.centered_by


def _trash(text: str) -> str:
    return "\x00\xff garbage {" + text[::-1]


@pytest.mark.parametrize("damage", [
    lambda t: t[: len(t) // 2],                            # truncated (a writer killed without atomic writes)
    _trash,                                                # garbage
    lambda t: "",                                          # empty
    lambda t: t.replace('"source": "exact"', '"source": "numeric"', 1),  # edited without the checksum
    lambda t: t.replace('"value": "6.5', '"value": "6.4', 1),
], ids=["truncated", "garbage", "empty", "edited", "edited-value"])
def test_damaged_entry_is_discarded_and_rebuilt(folder, damage):
    good = hermite(F, center=True)
    entry = only_entry(folder)
    entry.write_text(damage(entry.read_text()))
    with pytest.warns(CacheWarning, match="discarded"):
        again = fresh(F, center=True)
    assert same(good, again)
    assert cache.load(sp.erf(X) + sp.S.Half, True, "auto") is not None       # the rebuilt entry is good again


def test_swapped_entry_is_refused(folder):
    """Another f's entry, complete with a valid checksum, under this f's file name."""
    tanh = hermite("tanh(x)")
    tanh_entry = only_entry(folder)
    erf = hermite("erf(x)")
    erf_entry = next(p for p in folder.glob("*.json") if p != tanh_entry)
    erf_entry.write_bytes(tanh_entry.read_bytes())
    with pytest.warns(CacheWarning, match="another expression"):
        again = fresh("erf(x)")
    assert same(erf, again) and same(tanh, fresh("tanh(x)"))


@pytest.mark.parametrize("field, payload", [
    ("exact", "__import__('os').system('touch {canary}')"),
    ("exact", "Add(Symbol('x'), 'open(\"{canary}\", \"w\")')"),          # a string would reach sympify -> eval
    ("exact", "Function('f')(Integer(1))"),
    ("exact", "Pow(Integer(10), Integer(10000000000))"),                   # evaluation would not finish
    ("exact", "factorial(Integer(1000000000))"),
    ("shift", "sympify('__import__(\"os\").system(\"touch {canary}\")')"),
    ("pickle", None),
], ids=["import", "string-to-sympify", "undefined-function", "huge-power", "huge-factorial", "sympify", "pickle"])
def test_code_carrying_entry_runs_nothing(folder, tmp_path, field, payload):
    canary = tmp_path / "pwned"
    good = hermite(F, center=True)
    entry = only_entry(folder)
    if field == "pickle":         # what the old cache format was: a pickle that runs a command
        entry.write_bytes(b"cos\nsystem\n(S'touch " + str(canary).encode() + b"'\ntR.")
    elif field == "shift":
        rewrite(entry, lambda d: d["result"].update(shift=payload.format(canary=canary)))
    else:
        rewrite(entry, lambda d: d["result"]["values"]["a1"].update(exact=payload.format(canary=canary)))
    start = time.monotonic()
    with pytest.warns(CacheWarning, match="discarded"):
        again = fresh(F, center=True)
    assert time.monotonic() - start < 30 and not canary.exists() and same(good, again)


@pytest.mark.parametrize("key, value", [
    ("a1", "2.0"),                       # a1^2 > nu
    ("nu", "0.0"),
    ("nu", "-1.0"),
    ("nu", "nan"),
    ("nu", "inf"),
    ("a2", "1e999999"),
    ("a0", "0.25"),                      # not centered
    ("a1", "0.65"),                      # disagrees with the stored closed form 2/sqrt(3 pi)
])
def test_inconsistent_values_are_refused(folder, key, value):
    good = hermite(F, center=True)
    rewrite(only_entry(folder), lambda d: d["result"]["values"][key].update(value=value))
    with pytest.warns(CacheWarning, match="discarded"):
        again = fresh(F, center=True)
    assert same(good, again)


def test_forged_but_consistent_values_are_refused(folder):
    """A forger who recomputes the checksum and keeps nu >= a1^2 is caught by an independent estimate."""
    good = hermite("tanh(x)")
    rewrite(only_entry(folder), lambda d: d["result"]["values"]["a1"].update(value="0.55"))
    with pytest.warns(CacheWarning, match="disagrees"):
        assert same(good, fresh("tanh(x)"))


@pytest.mark.parametrize("f, center", [("sin(50*x)", False), ("exp(x**2/5)", True), ("sign(x - 1)", True),
                                       ("x**12", True), ("relu(x)", True), ("exp(10*x)", True)])
def test_good_entries_of_wild_f_are_kept(folder, f, center):
    good = hermite(f, center=center, method="numeric")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert same(good, fresh(f, center=center, method="numeric"))
        # read back, not recomputed: the independent estimate judged the entry (overflow does not stop it)
        assert cache.load(parse_nonlinearity(f), center, "numeric") is not None


def test_json_nan_constant_is_refused(folder):
    good = hermite("tanh(x)")
    entry = only_entry(folder)
    rewrite(entry, lambda d: d["result"]["values"]["nu"].update(value="NAN-MARKER"))
    entry.write_text(entry.read_text().replace('"NAN-MARKER"', "NaN"))
    with pytest.warns(CacheWarning, match="discarded"):
        assert same(good, fresh("tanh(x)"))


def test_centering_shift_is_checked(folder):
    good = hermite("sigmoid(x)", center=True)
    rewrite(only_entry(folder), lambda d: d["result"].update(shift="Rational(1, 3)"))
    with pytest.warns(CacheWarning, match="shift"):
        assert same(good, fresh("sigmoid(x)", center=True))


def test_unwritable_location_means_no_cache_and_one_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(cache, "_unusable", set())
    for root in (blocker / "cache", tmp_path / ("n" * 300)):      # a file in the way; a name too long
        monkeypatch.setenv("SYMRMT_CACHE_DIR", str(root))
        api._hermite_cached.cache_clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first, _ = hermite("tanh(x)"), hermite("erf(x)")
            fresh("tanh(x)")
        assert len([w for w in caught if issubclass(w.category, CacheWarning)]) == 1, [str(w.message) for w in caught]
        assert "cannot write" in str(caught[0].message) and abs(first.a1 - 0.6057055096021589) < 1e-15
    api._hermite_cached.cache_clear()


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root can write anywhere")
def test_read_only_folder(tmp_path, monkeypatch):
    root = tmp_path / "ro"
    root.mkdir()
    root.chmod(0o500)
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(root))
    monkeypatch.setattr(cache, "_unusable", set())
    api._hermite_cached.cache_clear()
    with pytest.warns(CacheWarning, match="cannot write"):
        assert hermite("tanh(x)").a1 > 0.6
    root.chmod(0o700)


def test_location_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")
    assert cache.cache_folder() is None
    monkeypatch.setenv("SYMRMT_CACHE_DIR", " OFF ")
    assert cache.cache_folder() is None
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "")
    assert cache.cache_folder() is None
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "~/mine")
    assert cache.cache_folder() == tmp_path / "mine" / "hermite"
    monkeypatch.delenv("SYMRMT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_folder() == tmp_path / "xdg" / "symrmt" / "hermite"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")       # the XDG specification says: ignore it
    assert cache.cache_folder() == tmp_path / ".cache" / "symrmt" / "hermite"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.cache_folder() == tmp_path / ".cache" / "symrmt" / "hermite"


def test_stale_temporary_files_are_removed(folder):
    folder.mkdir(parents=True)
    stale, live = folder / ".dead-writer.abc.tmp", folder / ".live-writer.def.tmp"
    stale.write_text("partial")
    live.write_text("partial")
    old = time.time() - 2 * cache._STALE_SECONDS
    os.utime(stale, (old, old))
    hermite("tanh(x)")
    assert not stale.exists() and live.exists()
    assert [p.name for p in folder.iterdir() if p.suffix == ".tmp"] == [live.name]


def test_two_processes_building_the_same_f_at_once(tmp_path, monkeypatch):
    """Both finish with the same numbers, and leave one complete entry and no temporary file."""
    code = ("import json, symrmt.nonlinearity as m; h = m.hermite('tanh(2*x)/2 + x/5', timeout=1.0);"
            " print(json.dumps([h.a1, h.nu, h.source['a1']]))")
    env = dict(os.environ, SYMRMT_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-W", "error::UserWarning", "-c", code], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    assert outs[0][0] == outs[1][0]
    entries = list((tmp_path / "hermite").iterdir())
    assert len(entries) == 1 and entries[0].suffix == ".json"
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path))
    values, _, _ = cache.load(sp.tanh(2 * X) / 2 + X / 5, False, "auto")
    assert float(values["a1"][0]) == json.loads(outs[0][0])[0]


def test_disk_cache_survives_a_new_process(tmp_path):
    """The first build for a new f is kept on disk: a fresh process reads it back without quadrature."""
    import subprocess
    import sys

    # Counts the computations that reach the disk cache's store (no wall clock: timings belong in benchmarks/).
    code = ("import symrmt.nonlinearity as m, symrmt.nonlinearity.cache as c; stored = []; store = c.store;"
            " c.store = lambda *a, **k: stored.append(1) or store(*a, **k); h = m.hermite('tanh(3*x)/3 + x/7');"
            " print(h.a1, h.nu, len(stored))")
    env = dict(os.environ, SYMRMT_CACHE_DIR=str(tmp_path))
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.split()[:2] == second.stdout.split()[:2]
    assert list((tmp_path / "hermite").glob("*.json")) and not list(tmp_path.rglob("*.pkl"))
    assert first.stdout.split()[2] == "1" and second.stdout.split()[2] == "0"     # computed once, then read back
