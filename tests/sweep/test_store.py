"""symrmt.sweep.store: partial last lines, foreign files, other specs, locks, unwritable paths."""
from __future__ import annotations

import pytest

from _support.sweep import SPEC, by_key
from symrmt.errors import SymrmtInputError
from symrmt.sweep import parse_spec, read_records, run_sweep
from symrmt.sweep.store import ResultFile


def test_a_partial_last_line_is_dropped_and_its_point_recomputed(local_run, tmp_path):
    spec, _, out, records = local_run
    lines = out.read_bytes().splitlines(keepends=True)
    crashed = tmp_path / "crashed.jsonl"
    half = len(lines[-1]) // 2
    crashed.write_bytes(b"".join(lines[:-1]) + lines[-1][:half])   # killed in the middle of a write
    report = run_sweep(spec, crashed, workers=1, progress=False)
    assert report["dropped_bytes"] == half and report["computed"] == 1
    assert crashed.read_bytes().endswith(b"\n")
    assert by_key(read_records(crashed)[1]) == by_key(records)


def test_a_file_from_another_spec_is_refused_and_left_alone(local_run):
    _, _, out, _ = local_run
    before = out.read_bytes()
    other = parse_spec(SPEC | {"seeds": 3})
    with pytest.raises(SymrmtInputError, match=r"different spec .*keys that differ: seeds"):
        run_sweep(other, out, progress=False)
    assert out.read_bytes() == before


def test_two_sweeps_cannot_write_one_file(local_run):
    spec, _, out, _ = local_run
    holder = ResultFile(out, spec)   # as a running sweep holds it
    try:
        with pytest.raises(SymrmtInputError, match="being written by another running sweep"):
            run_sweep(spec, out, progress=False)
    finally:
        holder.close()


def test_an_out_file_that_cannot_be_opened_is_a_clear_error(tmp_path):
    with pytest.raises(SymrmtInputError, match="cannot open it for writing"):
        run_sweep(parse_spec(SPEC), tmp_path / "no-such-folder" / "out.jsonl", progress=False)


def test_a_file_that_is_not_a_sweep_result_is_refused(tmp_path):
    foreign = tmp_path / "notes.jsonl"
    foreign.write_text('{"hello": 1}\n')
    with pytest.raises(SymrmtInputError, match="not a symrmt sweep result file"):
        run_sweep(parse_spec(SPEC), foreign, progress=False)
