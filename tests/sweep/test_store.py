"""symrmt.sweep.store: partial last lines, foreign files, other specs, locks, damaged records, I/O errors.

The rule under test: a file is judged whole before anything is written, and a file that is
refused keeps its bytes and its mtime (every refusal below checks both).
"""
from __future__ import annotations

import errno
import json
import os
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from _support.sweep import SPEC, TINY, by_key, serial_backend
from symrmt.cli import main
from symrmt.errors import SymrmtInputError
from symrmt.sweep import parse_spec, point_key, read_records, run_sweep, summarize
from symrmt.sweep.store import ResultFile

#: An mtime far in the past: any write would move it to now.
OLD = 10**18


def aged(path, data: bytes):
    """``path`` holding ``data``, with an old mtime."""
    path.write_bytes(data)
    os.utime(path, ns=(OLD, OLD))
    return path


def assert_untouched(path, data: bytes) -> None:
    assert path.read_bytes() == data and path.stat().st_mtime_ns == OLD


def resume(spec, path) -> dict:
    with serial_backend():
        return run_sweep(spec, path, progress=False)


def cli(args, capsys) -> tuple[int, str]:
    """Exit status and stderr of ``symrmt ARGS`` (local sweeps run in this process)."""
    with serial_backend():
        status = main(args)
    return status, capsys.readouterr().err


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


# ---------------------------------------------------------------------------
# Files a sweep did not create: refused before any write
# ---------------------------------------------------------------------------

FOREIGN = {
    "text with a partial last line": b"line one\nline two",      # was cut to "line one\n" before the check
    "another program's JSON lines": b'{"hello": 1}\n{"partial',
    "binary": b"\x00\xff\xfe binary\n\x01",
    "one short line": b'{"sym',
    "another spec's cut header": b'{"symrmt_sweep":1,"spec_hash":"0000',
    "a JSON list": b"[1, 2]\n",
    "a header of another format": b'{"symrmt_sweep":2}\n',
}


@pytest.mark.parametrize("name", FOREIGN)
def test_a_file_a_sweep_did_not_create_is_refused_untouched(tiny_run, tmp_path, capsys, name):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(TINY))
    notes = aged(tmp_path / "notes.txt", FOREIGN[name])
    status, err = cli(["sweep", str(spec_file), "--out", str(notes)], capsys)
    assert status == 2 and "not a symrmt sweep result file" in err and err.count("\n") == 1
    assert_untouched(notes, FOREIGN[name])
    status, err = cli(["sweep", "--summary", str(notes), "--csv", str(tmp_path / "s.csv")], capsys)
    assert status == 2 and err.count("\n") == 1
    assert_untouched(notes, FOREIGN[name])


def test_an_empty_file_is_adopted(tiny_run, tmp_path):
    spec, finished = tiny_run
    empty = aged(tmp_path / "empty.jsonl", b"")
    assert read_records(empty) == (None, [])
    assert resume(spec, empty)["computed"] == 3
    assert empty.read_bytes() == finished


@pytest.mark.parametrize("cut", [16, 40, -2])
def test_a_cut_header_of_this_spec_is_completed(tiny_run, tmp_path, cut):
    spec, finished = tiny_run
    header = finished[: finished.index(b"\n") + 1]
    path = aged(tmp_path / "cut.jsonl", header[:cut])
    assert read_records(path) == (None, [])
    report = resume(spec, path)
    assert report["dropped_bytes"] == len(header[:cut]) and report["computed"] == 3
    assert path.read_bytes() == finished


def test_the_cut_header_of_another_spec_is_refused_untouched(tiny_run, tmp_path):
    spec, finished = tiny_run
    other = parse_spec(TINY | {"seeds": 2})
    path = aged(tmp_path / "cut.jsonl", finished[:40])
    with pytest.raises(SymrmtInputError, match="not the start of this spec's header"):
        resume(other, path)
    assert_untouched(path, finished[:40])


@pytest.mark.parametrize("tail, dropped", [(b'{"spec_hash":"', True), (b"{", True), (b"my notes", False),
                                           (b'{"spec_hash":"0000000000000000","key":"', False)])
def test_a_partial_last_line_is_dropped_only_when_it_starts_a_record_of_this_spec(tiny_run, tmp_path, tail, dropped):
    spec, finished = tiny_run
    last = finished.rstrip(b"\n").rfind(b"\n") + 1       # the last record: resumed, it is recomputed
    start = tail.replace(b"0000000000000000", spec.hash.encode()) if dropped else tail
    path = aged(tmp_path / "tail.jsonl", finished[:last] + start)
    if dropped:
        assert resume(spec, path)["dropped_bytes"] == len(start)
        assert path.read_bytes() == finished
    else:
        with pytest.raises(SymrmtInputError, match="last line is incomplete and is not the start of a record"):
            resume(spec, path)
        assert_untouched(path, finished[:last] + start)


# ---------------------------------------------------------------------------
# Records no sweep wrote, and duplicates: resume and --summary judge them alike
# ---------------------------------------------------------------------------

def _edit(finished: bytes, line: int, edit) -> bytes:
    """``finished`` with record line ``line`` (1 = header) replaced by ``edit(record)``."""
    lines = finished.splitlines(keepends=True)
    record = json.loads(lines[line - 1])
    new = edit(record)
    lines[line - 1] = new if isinstance(new, bytes) else (json.dumps(record, separators=(",", ":")) + "\n").encode()
    return b"".join(lines)


def _moved_to_seed(record: dict, seed: int) -> None:
    record["seed"] = seed
    record["key"] = point_key(record)     # consistent, but a point the spec does not have


BAD_RECORDS = {
    "moved to another point": (lambda r: r.update(c=0.5), "key that is not the hash of its point"),
    "another spec's": (lambda r: r.update(spec_hash="0" * 16), "is a record of another spec"),
    "missing fields": (lambda r: r.pop("mc"), r"misses the field\(s\) mc"),
    "missing the point": (lambda r: r.pop("seed"), r"misses the field\(s\) seed"),
    "not an object": (lambda r: b"[1]\n", "is not a JSON object"),
    "a point outside the spec": (lambda r: _moved_to_seed(r, 7), "is not a point of the header's spec"),
    "another gamma grid": (lambda r: r.update(gamma=[0.1]), "does not match the spec's gamma"),
    "a short curve": (lambda r: r["mc"].update(attention=[0.5]), "curves that are not lists"),
    "NaN in a curve": (lambda r: r["theory"]["linear"].__setitem__(0, float("nan")), "curves that are not lists"),
    "a string in a curve": (lambda r: r["mc"]["linear"].__setitem__(1, "0.3"), "curves that are not lists"),
    "true in a curve": (lambda r: r["mc"]["attention"].__setitem__(0, True), "curves that are not lists"),
}


@pytest.mark.parametrize("name", BAD_RECORDS)
def test_a_record_no_sweep_wrote_is_refused_by_resume_and_summary_naming_its_line(tiny_run, tmp_path, capsys, name):
    spec, finished = tiny_run
    edit, message = BAD_RECORDS[name]
    data = _edit(finished, 3, edit)
    path = aged(tmp_path / "edited.jsonl", data)
    with pytest.raises(SymrmtInputError, match="line 3 .*" + message):
        resume(spec, path)
    assert_untouched(path, data)
    with pytest.raises(SymrmtInputError, match="line 3 .*" + message):
        summarize(path)
    status, err = cli(["sweep", "--summary", str(path), "--csv", str(tmp_path / "s.csv")], capsys)
    assert status == 2 and "line 3 " in err and err.count("\n") == 1        # was a KeyError, exit 1
    assert_untouched(path, data)


def test_an_identical_copy_of_a_record_counts_once_with_a_warning(tiny_run, tmp_path):
    spec, finished = tiny_run
    lines = finished.splitlines(keepends=True)
    data = b"".join(lines + [lines[2]])
    path = aged(tmp_path / "twice.jsonl", data)
    with pytest.warns(UserWarning, match=r"1 record line\(s\) repeat an earlier one \(line 5 repeats line 3\)"):
        report = resume(spec, path)
    assert report["computed"] == 0 and report["skipped"] == 3
    assert_untouched(path, data)                             # nothing to do: nothing written
    with pytest.warns(UserWarning, match="repeat an earlier one"):
        header, records = read_records(path)
    assert sorted(r["key"] for r in records) == sorted(point_key(p) for p in spec.points())


def test_two_different_records_of_one_point_are_refused(tiny_run, tmp_path):
    spec, finished = tiny_run
    lines = finished.splitlines(keepends=True)
    data = b"".join(lines) + _edit(b"".join(lines[:3]), 3, lambda r: r["mc"]["attention"].__setitem__(0, 0.5))[
        len(b"".join(lines[:2])):]
    path = aged(tmp_path / "conflict.jsonl", data)
    for call in (lambda: resume(spec, path), lambda: summarize(path)):
        with pytest.raises(SymrmtInputError, match="lines 3 and 5 are two different records of one point"):
            call()
        assert_untouched(path, data)


def test_a_damaged_header_is_refused(tiny_run, tmp_path):
    spec, finished = tiny_run
    data = _edit(finished, 1, lambda h: h.update(points=4))
    path = aged(tmp_path / "header.jsonl", data)
    for call in (lambda: resume(spec, path), lambda: summarize(path)):
        with pytest.raises(SymrmtInputError, match="the header is damaged"):
            call()
        assert_untouched(path, data)


# ---------------------------------------------------------------------------
# I/O errors are input errors: one line, exit 2
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name, reason", [
    ("notes.txt/out.jsonl", "Not a directory"),
    ("x" * 300 + ".jsonl", "File name too long"),
    (".", "Is a directory"),
    ("bad\0name.jsonl", "NUL byte"),
])
def test_an_out_path_that_cannot_be_written_is_an_input_error(tmp_path, capsys, name, reason):
    (tmp_path / "notes.txt").write_text("notes\n")
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(TINY))
    out = os.path.join(str(tmp_path), name)
    with pytest.raises(SymrmtInputError, match=reason):
        resume(parse_spec(TINY), out)
    if "\0" not in name:          # argv cannot hold a NUL byte
        status, err = cli(["sweep", str(spec_file), "--out", out], capsys)
        assert status == 2 and err.count("\n") == 1          # the CLI may refuse the path before the store
    assert (tmp_path / "notes.txt").read_text() == "notes\n"


def test_a_pipe_or_a_device_is_not_a_result_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SymrmtInputError, match="is not a regular file"):
        resume(parse_spec(TINY), fifo)
    if os.path.exists("/dev/full"):
        with pytest.raises(SymrmtInputError, match="is not a regular file"):
            resume(parse_spec(TINY), "/dev/full")


def test_a_full_device_while_appending_is_an_input_error_and_keeps_the_finished_points(tiny_run, tmp_path, capsys,
                                                                                        monkeypatch):
    spec, finished = tiny_run
    header_and_one = b"".join(finished.splitlines(keepends=True)[:2])
    path = aged(tmp_path / "full.jsonl", header_and_one)
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(TINY))

    def full(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(ResultFile, "_write", full)
    status, err = cli(["sweep", str(spec_file), "--out", str(path)], capsys)
    assert status == 2 and "cannot write a record (No space left on device)" in err and err.count("\n") == 1
    assert_untouched(path, header_and_one)


# ---------------------------------------------------------------------------
# Property: whatever happened to a result file, no traceback, no damage, no lost or doubled point
# ---------------------------------------------------------------------------

DAMAGES = ("truncate", "duplicate", "reorder", "delete", "garble", "digit", "foreign", "append")


def _damaged(data, content: bytes) -> bytes:
    """``content`` after one damage drawn from ``data``: what crashes, editors, cat and cp can do to a file."""
    kind = data.draw(st.sampled_from(DAMAGES), label="damage")
    lines = content.splitlines(keepends=True)
    if kind == "truncate":
        return content[: data.draw(st.integers(0, len(content)), label="cut at")]
    if kind == "foreign":
        return data.draw(st.binary(max_size=200) | st.text(max_size=80).map(str.encode), label="foreign")
    if kind == "append":
        return content + data.draw(st.binary(max_size=60), label="appended")
    if kind == "digit":
        digits = [i for i, byte in enumerate(content) if chr(byte).isdigit()]
        if not digits:
            return content
        i = data.draw(st.sampled_from(digits), label="digit at")
        return content[:i] + str(data.draw(st.integers(0, 9), label="new digit")).encode() + content[i + 1:]
    if not lines:
        return content
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    if kind == "duplicate":
        j = data.draw(st.integers(0, len(lines)), label="copied to")
        return b"".join(lines[:j] + [lines[i]] + lines[j:])
    if kind == "reorder":
        return b"".join(data.draw(st.permutations(lines), label="order"))
    if kind == "delete":
        return b"".join(lines[:i] + lines[i + 1:])
    a = data.draw(st.integers(0, len(lines[i])), label="garbled from")
    b = data.draw(st.integers(a, min(len(lines[i]), a + 8)), label="garbled to")
    lines[i] = lines[i][:a] + data.draw(st.binary(max_size=8), label="garbage") + lines[i][b:]
    return b"".join(lines)


def _keys(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["key"] for line in lines]


@settings(max_examples=200)
@given(data=st.data())
def test_a_damaged_result_file_is_refused_untouched_or_resumed_without_losing_or_doubling_a_point(tiny_run, data):
    spec, finished = tiny_run
    lines = finished.splitlines(keepends=True)
    content = b"".join(lines[: data.draw(st.integers(1, len(lines)), label="lines written")])
    for _ in range(data.draw(st.integers(1, 3), label="damages")):
        content = _damaged(data, content)
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")           # repeated records and other versions warn; the file is judged
        path = aged(Path(folder) / "results.jsonl", content)
        try:
            report = resume(spec, path)
        except SymrmtInputError:
            event("refused")
            assert_untouched(path, content)
        else:
            event(f"resumed, {report['computed']} computed")
            after = path.read_bytes()
            complete = content[: content.rfind(b"\n") + 1]
            if not complete:                      # adopted only when empty or this spec's own cut header
                assert content == b"" or lines[0].startswith(content)
                complete = lines[0]
            assert after.startswith(complete)     # nothing written before was changed or lost
            assert json.loads(complete.splitlines()[0])["spec_hash"] == spec.hash
            before, appended = _keys(complete.splitlines()[1:]), _keys(after[len(complete):].splitlines())
            every = {point_key(p) for p in spec.points()}
            assert sorted(appended) == sorted(every - set(before)) == sorted(set(appended))
            assert report["computed"] == len(appended)
            assert sorted(r["key"] for r in read_records(path)[1]) == sorted(every)
        try:
            rows = summarize(path)[1]
        except SymrmtInputError:
            pass
        else:
            assert all(row["seeds"] <= spec.seeds for row in rows)
