"""Finished sweeps the tests read: one local run (two spawned workers cost seconds: run it once), one tiny run."""
from __future__ import annotations

import json

import pytest

from _support.sweep import SPEC, TINY, serial_backend
from symrmt.sweep import load_spec, parse_spec, read_records, run_sweep


@pytest.fixture(scope="session")
def local_run(tmp_path_factory):
    """SPEC run once on two local workers: (spec, spec file, result file, records)."""
    folder = tmp_path_factory.mktemp("sweep")
    spec_file = folder / "spec.json"
    spec_file.write_text(json.dumps(SPEC))
    spec = load_spec(spec_file)
    out = folder / "results.jsonl"
    report = run_sweep(spec, out, workers=2, progress=False)
    assert report["computed"] == report["points"] == 16 and report["skipped"] == 0
    return spec, spec_file, out, read_records(out)[1]


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """TINY run once in this process: (spec, the finished file's bytes)."""
    spec = parse_spec(TINY)
    out = tmp_path_factory.mktemp("tiny") / "tiny.jsonl"
    with serial_backend():
        run_sweep(spec, out, progress=False)
    return spec, out.read_bytes()
