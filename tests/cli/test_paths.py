"""``symrmt.cli.paths``: every output path is checked before anything is computed, and nothing is touched.

One table of named cases (a bad target, the fragment its one-line message must hold), run through
every command that writes a file: ``compare --plot``, ``simulate --spectrum --plot``, ``demo --plot``,
``figure --out``, ``sweep --summary --csv`` and ``sweep --out``. Each command is set up to compute for
minutes (large n, the full figure), so a check that came after the computation would fail the time bound;
and the folder's files are compared byte for byte before and after.
"""
from __future__ import annotations

import hashlib
import json
import os
import time

import pytest

from symrmt import cli

from .runner import run

BIG = ["--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--n", "3000", "--seeds", "40", "--quiet"]  # minutes
LONG_NAME = "a" * 300


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A finished sweep result file (two points) to summarize, and a spec whose run would take minutes."""
    folder = tmp_path_factory.mktemp("sweep")
    spec = folder / "spec.json"
    spec.write_text(json.dumps({"f": ["tanh(x)"], "c": [1.0], "n": [24], "gamma": [0.5], "seeds": 2}))
    out = folder / "results.jsonl"
    assert cli.main(["sweep", str(spec), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    big = folder / "big.json"
    big.write_text(json.dumps({"f": ["tanh(x)"], "c": [1.0], "n": [3000], "gamma": [0.5], "seeds": 40}))
    return out, big


#: command -> argv writing to PATH (the sweep file names are filled in from the ``results`` fixture).
WRITERS = {
    "compare --plot": ["compare", *BIG, "--plot", "{path}"],
    "simulate --plot": ["simulate", *BIG, "--spectrum", "--plot", "{path}"],
    "demo --plot": ["demo", "--n", "3000", "--seeds", "40", "--plot", "{path}"],
    "figure --out": ["figure", "validation", "--quiet", "--out", "{path}"],
    "sweep --csv": ["sweep", "--summary", "{results}", "--csv", "{path}"],
    "sweep --out": ["sweep", "{big}", "--out", "{path}", "--quiet"],
}
PLOTS = ("compare --plot", "simulate --plot", "demo --plot")
FILES = (*PLOTS, "sweep --csv", "sweep --out")

#: name -> (target, the writers it applies to, fragment of the message); {tmp} is a scratch folder.
CASES = {
    "missing folder": ("{tmp}/missing/folder/out.png", FILES, "does not exist"),
    "folder for a file": ("{tmp}", FILES, "is a folder"),
    "trailing slash": ("{tmp}/sub/", FILES, "is a folder"),
    "unknown extension": ("{tmp}/out.xyz", PLOTS, "not supported"),
    "no extension": ("{tmp}/out", PLOTS, "not supported"),
    "format png/pdf/svg only": ("{tmp}/out.jpg", PLOTS, "use one of .png, .pdf, .svg"),
    "name too long": ("{tmp}/" + LONG_NAME + ".png", WRITERS, "bytes long"),
    "path too long": ("{tmp}/" + "d/" * 2100 + "out.png", WRITERS, "bytes long"),
    "under /proc": ("/proc/self/out.png", WRITERS, "/proc, a virtual file system"),
    "under /sys": ("/sys/out.png", WRITERS, "/sys, a virtual file system"),
    "empty name": ("", ("figure --out", "sweep --out"), "give a file or folder name"),
    "a file for a folder": ("{tmp}/file.png", ("figure --out",), "is a file, not a folder"),
    "below a file": ("{tmp}/file.png/sub", ("figure --out",), "is a file, so the folder cannot be created"),
    "a FIFO": ("{tmp}/fifo.png", FILES, "not a regular file"),
}


def _tree(folder) -> dict:
    """Every file under ``folder`` with the hash of its bytes (FIFOs by name only: reading one would block)."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "special")
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("writer, case", [(w, c) for c, (_, writers, _) in CASES.items() for w in WRITERS
                                          if w in writers])
def test_bad_output_paths_are_refused_before_computing_and_touch_nothing(capsys, tmp_path, results, writer, case):
    target, _, needle = CASES[case]
    (tmp_path / "sub").mkdir()
    (tmp_path / "file.png").write_bytes(b"not a plot")
    os.mkfifo(tmp_path / "fifo.png")
    argv = [a.format(path=target.format(tmp=tmp_path), results=results[0], big=results[1]) for a in WRITERS[writer]]
    before, results_before = _tree(tmp_path), results[0].read_bytes()
    start = time.monotonic()
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and needle in err and len(err.splitlines()) == 1, err
    assert time.monotonic() - start < 20                 # each command would compute for minutes
    assert _tree(tmp_path) == before and results[0].read_bytes() == results_before


def test_unwritable_folder_and_file_are_refused(capsys, tmp_path, monkeypatch):
    """Permissions (faked: the tests may run as root, who may write anywhere)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "old.png").write_bytes(b"old")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if str(p).startswith(str(locked))
                        else real_access(p, mode, **kw))
    for name, needle in (("new.png", "is not writable"), ("old.png", "the file exists and is not writable")):
        status, _, err = run(capsys, "compare", *BIG, "--plot", str(locked / name))
        assert status == 2 and needle in err, err
    assert (locked / "old.png").read_bytes() == b"old" and not (locked / "new.png").exists()


def test_summary_never_overwrites_its_result_file(capsys, results):
    out, _ = results
    before = out.read_bytes()
    status, _, err = run(capsys, "sweep", "--summary", str(out), "--csv", str(out))
    assert status == 2 and "would replace that input" in err and out.read_bytes() == before


def test_good_paths_pass_and_upper_case_extensions_too(capsys, tmp_path, results):
    """The checks refuse only what must fail: a .PDF plot and a new CSV in an existing folder are written."""
    plot = tmp_path / "compare.PDF"
    status, _, err = run(capsys, "compare", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--n", "32",
                         "--seeds", "2", "--quiet", "--plot", str(plot))
    assert status == 0 and plot.read_bytes().startswith(b"%PDF"), err
    csv = tmp_path / "summary.csv"
    assert run(capsys, "sweep", "--summary", str(results[0]), "--csv", str(csv), "--json")[0] == 0
    assert csv.read_text().startswith("f,")
