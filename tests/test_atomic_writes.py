"""The one writer (symrmt.runtime.files): a failed, limited or killed write keeps the old file whole, in every format.

The in-process tests plant a failure inside the writer (each one would fail on a writer that truncates
the target first); the subprocess tests run the real commands under ``ulimit -f`` (the write gets EFBIG)
and kill them with SIGKILL in the middle of the write, for png, pdf, svg, csv, tex and json.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from symrmt.errors import SymrmtInputError
from symrmt.runtime import files
from symrmt.runtime.files import (check_not_an_input, check_outputs, fresh_path, same_file, save_figure,
                                  write_atomically, write_text_atomically)

ROOT = Path(__file__).resolve().parents[1]
OLD = b"the previous good file\n" * 8


def _listing(folder: Path) -> set[str]:
    return set(os.listdir(folder))


class Planted(Exception):
    pass


def _failing(stream) -> None:
    stream.write("half of the new content")
    stream.flush()
    raise Planted


@pytest.mark.parametrize("named", [False, True], ids=["unnamed-temporary", "named-temporary"])
def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, named):
    if named:      # the fallback of systems without O_TMPFILE
        monkeypatch.setattr(files, "_open_temporary", files._open_named)
    target = tmp_path / "out.csv"
    target.write_bytes(OLD)
    before = _listing(tmp_path)
    with pytest.raises(Planted):
        write_atomically(target, _failing)
    assert target.read_bytes() == OLD and _listing(tmp_path) == before


def test_the_writer_catches_a_planted_truncating_writer(tmp_path):
    """Power: the assertion above fails for a writer that opens the target itself (the old behaviour)."""
    target = tmp_path / "out.csv"
    target.write_bytes(OLD)
    with pytest.raises(Planted), open(target, "w") as stream:
        _failing(stream)
    assert target.read_bytes() != OLD


@pytest.mark.parametrize("path", ["unnamed", "copied", "named"])
def test_every_way_of_placing_the_file_writes_the_content_and_keeps_the_mode(tmp_path, monkeypatch, path):
    if path == "copied":           # a system where an unnamed file cannot be linked: it is copied under a name
        monkeypatch.setattr(files, "_LINK_FROM_PROC", [False])
    if path == "named":
        monkeypatch.setattr(files, "_open_temporary", files._open_named)
    target = tmp_path / "out.tex"
    target.write_bytes(OLD)
    os.chmod(target, 0o640)
    assert write_text_atomically(target, "new\n") == target
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == 0o640
    assert _listing(tmp_path) == {"out.tex"}


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    (tmp_path / "real.csv").write_bytes(OLD)
    (tmp_path / "link.csv").symlink_to("real.csv")
    write_text_atomically(tmp_path / "link.csv", "new\n")
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "real.csv").read_text() == "new\n"


def test_replace_false_never_replaces_and_takes_the_first_free_name(tmp_path):
    target = tmp_path / "plot.csv"
    target.write_bytes(OLD)
    (tmp_path / "plot-1.csv").write_bytes(OLD)
    written = write_text_atomically(target, "new\n", replace=False)
    assert written == tmp_path / "plot-2.csv" and written.read_text() == "new\n"
    assert target.read_bytes() == OLD and (tmp_path / "plot-1.csv").read_bytes() == OLD
    assert write_text_atomically(tmp_path / "free.csv", "x", replace=False) == tmp_path / "free.csv"


def test_fresh_path_keeps_companions_under_one_stem(tmp_path):
    (tmp_path / "rank.png").write_bytes(b"")
    (tmp_path / "rank-1.csv").write_bytes(b"")
    (tmp_path / "rank-2.png").symlink_to("nowhere")              # a dangling link is a taken name
    assert fresh_path(tmp_path / "rank.png", (".csv",)) == tmp_path / "rank-3.png"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write any file")
def test_a_read_only_file_is_refused_as_open_refuses_it(tmp_path):
    target = tmp_path / "old.csv"
    target.write_bytes(OLD)
    os.chmod(target, 0o444)
    with pytest.raises(PermissionError):
        write_text_atomically(target, "new\n")
    assert target.read_bytes() == OLD and _listing(tmp_path) == {"old.csv"}


def test_a_device_is_written_into_and_a_folder_refused(tmp_path):
    assert write_text_atomically(os.devnull, "x") == Path(os.devnull)
    with pytest.raises(IsADirectoryError):
        write_text_atomically(tmp_path, "x")
    if os.path.exists("/dev/full"):
        with pytest.raises(OSError, match="No space"):
            write_text_atomically("/dev/full", "x")


@pytest.mark.parametrize("extension", ["png", "pdf", "svg"])
def test_save_figure_writes_the_format_of_the_extension(tmp_path, extension):
    from symrmt.presentation.plotting import agg_pyplot

    plt = agg_pyplot()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    path = save_figure(fig, tmp_path / f"f.{extension.upper()}")
    plt.close(fig)
    assert path.read_bytes()[:5] == {"png": b"\x89PNG\r", "pdf": b"%PDF-", "svg": b"<?xml"}[extension]


def test_identity_not_name(tmp_path):
    (tmp_path / "in.json").write_text("{}")
    (tmp_path / "sub").mkdir()
    os.link(tmp_path / "in.json", tmp_path / "hard.json")
    (tmp_path / "soft.json").symlink_to("in.json")
    for alias in ("hard.json", "soft.json", "sub/../in.json"):
        assert same_file(tmp_path / alias, tmp_path / "in.json")
        with pytest.raises(SymrmtInputError, match="is the file given to SPEC"):
            check_not_an_input(tmp_path / alias, "--out", [(tmp_path / "in.json", "SPEC")])
    check_not_an_input(tmp_path / "other.json", "--out", [(tmp_path / "in.json", "SPEC")])
    with pytest.raises(SymrmtInputError, match="are the same file"):          # two outputs, neither exists yet
        check_outputs([(tmp_path / "a.csv", "--csv"), (tmp_path / "sub" / ".." / "a.csv", "--plot")])
    check_outputs([(tmp_path / "a.csv", "--csv"), (tmp_path / "b.csv", "--plot")])


# --------------------------------------------------------------------------- the real commands, limited and killed

def tiny_model(folder: Path) -> Path:
    """A BERT-style safetensors file of one layer, p = 8, two heads (config.json beside it)."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    tensors = {f"encoder.layer.0.attention.self.{part}.{kind}": rng.standard_normal(shape).astype(np.float32)
               for part in ("query", "key") for kind, shape in (("weight", (8, 8)), ("bias", (8,)))}
    save_file(tensors, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"num_attention_heads": 2}))
    return folder / "model.safetensors"


def _weights(folder: Path) -> list[str]:
    tiny_model(folder)
    return ["weights", str(folder / "model.safetensors"), "--rank-max", "2", "--json", "--plot"]


#: format -> (the command that writes it, given the folder; its output is the last argument)
COMMANDS = {
    "png": _weights, "pdf": _weights, "svg": _weights,
    "csv": lambda folder: ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1e-3:10:50log", "--json", "--csv"],
    "tex": lambda folder: ["latex", "--json", "--document"],
}
LIMIT = 1024      # bytes: every output above is larger (the smallest, the CSV, is about 3 kB)

_KILLABLE = textwrap.dedent("""
    import contextlib, os, sys, time
    from symrmt.runtime import files

    class Slow:
        '''The stream, announcing its first write on stderr and then stalling, to be killed in the middle.'''
        def __init__(self, stream):
            self.stream, self.writes = stream, 0
        def write(self, data):
            n = self.stream.write(data)
            self.stream.flush()
            self.writes += 1
            if self.writes == 1:
                os.write(2, b"WRITING\\n")
                time.sleep(120)
            return n
        def __getattr__(self, name):
            return getattr(self.stream, name)

    real = files._stream

    @contextlib.contextmanager
    def slow(*args):
        with real(*args) as stream:
            yield Slow(stream)

    files._stream = slow
    if sys.argv[1] == "--json-file":
        files.write_text_atomically(sys.argv[2], "{" + '"x": 1, ' * 5000 + '"y": 0}')
    else:
        from symrmt.cli import main
        sys.exit(main(sys.argv[1:]))
""")


def _environment() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "SYMRMT_JIT": "never", "SYMRMT_CACHE_DIR": "off",
            "PYTHONDONTWRITEBYTECODE": "1"}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # the write then fails with EFBIG instead of killing


def _prepare(tmp_path: Path, extension: str) -> tuple[list[str], Path, set[str]]:
    argv = COMMANDS[extension](tmp_path)
    target = tmp_path / f"old.{extension}"
    target.write_bytes(OLD)
    return [*argv, str(target)], target, _listing(tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("extension", sorted(COMMANDS))
def test_ulimit_f_keeps_the_old_file_and_says_so_in_one_line(tmp_path, extension):
    argv, target, before = _prepare(tmp_path, extension)
    done = subprocess.run([sys.executable, "-m", "symrmt", *argv], capture_output=True, text=True, cwd=tmp_path,
                          env=_environment(), preexec_fn=_limited, timeout=300)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-2000:]
    assert "File too large" in lines[0] and target.name in lines[0], lines[0]
    assert target.read_bytes() == OLD and _listing(tmp_path) == before


@pytest.mark.slow
def test_ulimit_f_keeps_the_old_json_file(tmp_path):
    """JSON files (the caches' entries) go through the same writer."""
    target = tmp_path / "old.json"
    target.write_bytes(OLD)
    code = (f"from symrmt.runtime.files import write_text_atomically as w; "
            f"w({str(target)!r}, '{{' + '\"x\": 1, ' * 5000 + '\"y\": 0}}')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_environment(),
                          preexec_fn=_limited, timeout=120)
    assert done.returncode != 0 and "File too large" in done.stderr
    assert target.read_bytes() == OLD and _listing(tmp_path) == {"old.json"}


def _kill_in_the_middle(argv: list[str], cwd: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", _KILLABLE, *argv], cwd=cwd, env=_environment(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            line = child.stderr.readline()
            if line == b"WRITING\n" or not line:
                break
        assert line == b"WRITING\n", f"the child ended before its write (status {child.wait()})"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="elsewhere a kill leaves the hidden temporary file")
@pytest.mark.parametrize("extension", [*sorted(COMMANDS), "json"])
def test_sigkill_in_the_middle_of_the_write_keeps_the_old_file_and_leaves_nothing(tmp_path, extension):
    if extension == "json":
        target = tmp_path / "old.json"
        target.write_bytes(OLD)
        argv, before = ["--json-file", str(target)], _listing(tmp_path)
    else:
        argv, target, before = _prepare(tmp_path, extension)
    _kill_in_the_middle(argv, tmp_path)
    assert target.read_bytes() == OLD and _listing(tmp_path) == before
