"""Hostile inputs, third round: the disk caches hold data, never code, and nothing read from them drives the terminal.

Each case plants what a forger can write into the user's cache folder and runs a command over it:

- forged Hermite entries (checksum recomputed) whose expression names a Symbol ``x[__import__('os').system(...)]``
  bound by a ``Sum``: a canary file that the command would create must not appear, through ``hermite``,
  ``theory``, ``latex``, ``check``, ``spectrum --center`` and ``hermite --param``;
- entries that are pipes (a reader that waits would hang: a writer comes after 5 s, and each case must finish well
  before), links out of the cache folder (never written through), cost bombs (``bell(10**6)``, ``10**10**10``; each
  case runs under a 20 s alarm, where an evaluation takes minutes), a compiled-system entry whose value or counts are
  changed with its checksum recomputed, two models under one name, and escape sequences from a parameter name or a
  cache entry (never printed raw).

Every case here fails on the code before this round (checked by running this file against it).
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import signal
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import symrmt
from symrmt.cli import main as cli_main
from symrmt.codegen import system_cache
from symrmt.models import model as registry
from symrmt.nonlinearity import api as hermite_api
from symrmt.nonlinearity import cache as hermite_cache
from symrmt.runtime import kernel_cache

from .harness import Case, run_case

#: A case that computes what an entry holds instead of refusing it takes minutes; a refusal takes well under this.
DEADLINE = 20
#: A pipe gets a writer after this long: a read that waited for one takes at least this long.
PIPE_WRITER = 5.0


@pytest.fixture()
def cache_folder(tmp_path, monkeypatch):
    """A cache of the test's own (the suite runs with the cache off), cleared of what this process remembers."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(folder))
    monkeypatch.chdir(tmp_path)
    _forget()
    yield folder
    _forget()


def _forget() -> None:
    """As a new process: only the disk remembers Hermite data, compiled systems and unusable folders."""
    hermite_api._hermite_cached.cache_clear()
    hermite_api._parametric_cached.cache_clear()
    hermite_api._coefficient_cached.cache_clear()
    registry._compiled.cache_clear()
    registry._summary.cache_clear()
    for module in (hermite_cache, system_cache, kernel_cache):
        module._unusable.clear()


class Overtime(BaseException):
    """A case ran past its deadline (a BaseException: no ``except OSError`` or ``except Exception`` swallows it)."""


@contextlib.contextmanager
def deadline(seconds: int = DEADLINE):
    """Fail (instead of running for minutes) when the block takes longer than ``seconds``."""
    def expire(signum, frame):
        signal.alarm(1)                   # again a second later, should the first be swallowed on the way out
        raise Overtime(f"took more than {seconds} s: the entry was evaluated or a pipe waited for, not refused")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _resign(path: Path, entry: dict) -> None:
    body = {k: v for k, v in entry.items() if k != "checksum"}
    path.write_text(json.dumps({**body, "checksum": hermite_cache._checksum(body)}))


# ----------------------------------------------------------------------------- forged Hermite entries: a canary


def _bound(name: str) -> sp.Expr:
    """A sum over a variable named ``name`` whose value is 0: a bound variable is no free symbol, so the entry's
    expression still counts as a number and agrees with its stored value."""
    k = sp.Symbol(name, integer=True)
    return sp.Sum(sp.KroneckerDelta(k, 5), (k, 1, 2))


def _forge_entries(folder: Path, name: str) -> int:
    """Add :func:`_bound` to every centering shift and every parametric closed form of the Hermite entries."""
    from symrmt.nonlinearity.serial import from_srepr

    forged = 0
    for path in sorted((folder / "hermite").glob("*.json")):
        entry = json.loads(path.read_text())
        result = entry["result"]
        if entry["request"].get("kind") == "parametric":
            for item in result.values():
                if item["exact"] is not None:
                    item["exact"] = sp.srepr(sp.Add(from_srepr(item["exact"]), _bound(name), evaluate=False))
                    forged += 1
        elif entry["request"]["center"]:
            result["shift"] = sp.srepr(_bound(name) if result["shift"] is None else
                                       sp.Add(from_srepr(result["shift"]), _bound(name), evaluate=False))
            forged += 1
        _resign(path, entry)
    return forged


def _canary_name(canary: Path) -> str:
    return f"x[__import__('os').system('touch {canary}')]"


CANARY_COMMANDS = {
    "hermite": (["hermite", "--f", "tanh(x)", "--center"], [("tanh(x)", True)]),
    "theory": (["theory", "--f", "tanh(x)", "--center", "--c", "1", "--gamma", "0.1"], [("tanh(x)", True)]),
    "latex": (["latex", "--f", "relu(x)", "--center"], [("relu(x)", True)]),
    "spectrum --center": (["spectrum", "--f", "relu(x)", "--center", "--c", "1", "--x", "0.5:2:3"],
                          [("relu(x)", True)]),
    "check": (["check", "--f", "tanh(x)", "--center", "--examples", "1", "--property", "large_gamma"],
              [("tanh(x)", True)]),
    # one value of a parameter: the data of f at that value (its entry, centered), as for any f
    "--param": (["hermite", "--f", "erf(s*x)", "--param", "s=1.5", "--center"], [("erf(3*x/2)", True)]),
}


@pytest.mark.parametrize("command", CANARY_COMMANDS)
def test_a_forged_hermite_entry_runs_nothing(command, cache_folder, tmp_path, capsys):
    argv, populate = CANARY_COMMANDS[command]
    canary = tmp_path / "canary"
    for f, center in populate:          # a genuine entry, as an earlier run leaves it
        symrmt.hermite(f, center=center)
    assert _forge_entries(cache_folder, _canary_name(canary)) >= 1
    _forget()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cli_main(argv)
    capsys.readouterr()
    assert not canary.exists(), f"{command}: a forged cache entry ran a shell command"


def test_a_forged_entry_prints_no_escape_sequence_and_no_tex_of_its_own(cache_folder, capsys):
    """A closed form's TeX is printed by ``hermite``: a forged one must not bring its own text."""
    from symrmt.nonlinearity.serial import from_srepr

    symrmt.hermite("relu(x)")
    (path,) = (cache_folder / "hermite").glob("*.json")
    entry = json.loads(path.read_text())
    payload = _bound("k\x1b[2J\\input{/etc/passwd}\\write18{touch pwned}\\end{document}")
    for item in entry["result"]["values"].values():
        if item["exact"] is not None:
            item["exact"] = sp.srepr(sp.Add(from_srepr(item["exact"]), payload, evaluate=False))
    _resign(path, entry)
    _forget()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli_main(["hermite", "--f", "relu(x)"]) == 0
    out = capsys.readouterr()
    for text in (out.out, out.err):
        assert "\x1b" not in text and "\\input" not in text and "\\write18" not in text and "end{document}" not in text


# --------------------------------------------------------------------------------------------------- cost bombs


@pytest.mark.parametrize("bomb", ["bell(Integer(1000000))", "binomial(Integer(1000000), Integer(500000))",
                                  "factorial(Integer(1000000))"])
def test_a_cost_bomb_in_a_hermite_entry_is_refused_at_once(bomb, cache_folder):
    good = symrmt.hermite("tanh(x)")
    (path,) = (cache_folder / "hermite").glob("*.json")
    entry = json.loads(path.read_text())
    entry["result"]["values"]["a1"].update(exact=bomb, source="exact")
    _resign(path, entry)
    _forget()
    with deadline(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = symrmt.hermite("tanh(x)")
    assert again.a1 == pytest.approx(good.a1, rel=1e-12)


# --------------------------------------------------------------------------------- pipes and links in the cache


def _pipe(path: Path) -> threading.Timer:
    """A named pipe at ``path`` with no writer; one comes after :data:`PIPE_WRITER` s, so a reader that waited
    finishes (late) instead of hanging the suite."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)

    def unblock() -> None:
        with contextlib.suppress(OSError):
            descriptor = os.open(path, os.O_RDWR | os.O_NONBLOCK)
            time.sleep(0.5)
            os.close(descriptor)
    timer = threading.Timer(PIPE_WRITER, unblock)
    timer.daemon = True
    timer.start()
    return timer


def _hermite_path(folder: Path, f: str, center: bool) -> Path:
    from symrmt.nonlinearity import parse_nonlinearity

    return hermite_cache._path(folder / "hermite", hermite_cache._request(parse_nonlinearity(f), center, "auto"))


def _system_path(folder: Path, name: str, form: str) -> Path:
    request = {**registry._request(registry.get(name), 1, form), "kind": "compiled"}
    return system_cache._path(folder / "systems", request)


def _timed(call) -> float:
    start = time.monotonic()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call()
    return time.monotonic() - start


def test_a_hermite_entry_that_is_a_pipe_is_not_waited_for(cache_folder):
    timer = _pipe(_hermite_path(cache_folder, "tanh(x)", False))
    took = _timed(lambda: symrmt.hermite("tanh(x)"))
    timer.cancel()
    assert took < PIPE_WRITER, f"{took:.1f} s: the reader waited for the pipe's writer"


def test_a_compiled_system_entry_that_is_a_pipe_is_not_waited_for(cache_folder, monkeypatch, tmp_path):
    monkeypatch.setattr(system_cache, "SHIPPED", tmp_path / "nothing shipped")     # derived, then stored
    symrmt.linear_error(c=1.0, gamma=0.1)                          # the cache folder and its key exist
    _forget()
    path = _system_path(cache_folder, "linear", "quadrature")
    path.unlink(missing_ok=True)
    timer = _pipe(path)
    took = _timed(lambda: symrmt.linear_error(c=1.0, gamma=0.1, form="quadrature"))
    timer.cancel()
    assert took < PIPE_WRITER, f"{took:.1f} s: the reader waited for the pipe's writer"


KERNEL = "def kernel(X, out):\n    for i in range(X.shape[1]):\n        out[0, i] = sqrt(X[0, i]) + 2.0 * X[1, i]\n"
KERNEL_SIGNATURE = "void(float64[:, ::1], float64[:, ::1])"


def _kernel(_: Path | None = None):
    from symrmt.runtime import jit

    return kernel_cache.cached_kernel(KERNEL, KERNEL_SIGNATURE, lambda fn, sig: jit.njit(fn, sig, cache=True))


def _kernel_source(folder: Path) -> Path:
    return folder / "kernels" / f"k_{kernel_cache._digest(KERNEL, KERNEL_SIGNATURE)[:40]}.py"


def test_a_kernel_source_that_is_a_pipe_is_not_waited_for(cache_folder):
    # no writer ever comes (compiling takes seconds, so a time limit could not tell waiting from compiling): a
    # reader that waits is stopped by the alarm, which fails the case
    path = _kernel_source(cache_folder)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    with deadline(90):
        _timed(_kernel)


def test_a_dangling_link_in_the_hermite_cache_is_not_followed(cache_folder, tmp_path):
    outside = tmp_path / "outside.json"
    path = _hermite_path(cache_folder, "tanh(x)", False)
    path.parent.mkdir(parents=True)
    path.symlink_to(outside)
    symrmt.hermite("tanh(x)")
    assert not outside.exists(), "the cache wrote through a link, out of its folder"


def test_a_kernel_source_linked_to_a_users_file_leaves_that_file_alone(cache_folder, tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text("precious = True\n")
    path = _kernel_source(cache_folder)
    path.parent.mkdir(parents=True)
    path.symlink_to(mine)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _kernel()
    assert mine.read_text() == "precious = True\n", "the kernel cache overwrote the file a link pointed to"


def test_pickles_are_not_loaded_from_a_folder_others_can_write(cache_folder):
    assert _kernel() is not None                                  # compiled into the disk cache
    kernels = cache_folder / "kernels"
    os.chmod(kernels, 0o777)
    _forget()
    with pytest.warns(kernel_cache.KernelCacheWarning, match="written by other users"):
        assert _kernel() is None, "Numba's pickles were used from a folder anyone can write"


def test_a_recorded_hash_rewritten_with_its_pickle_is_refused(cache_folder):
    """A forger who rewrites a Numba file and its hash in the manifest together (without the cache's key)."""
    import hashlib

    _kernel()
    kernels = cache_folder / "kernels"
    manifest = next(kernels.glob("k_*.json"))
    recorded = json.loads(manifest.read_text())
    code = next((kernels / "__pycache__").glob("*.nbc"))
    code.write_bytes(code.read_bytes() + b"forged")
    recorded["files"][code.name] = hashlib.sha256(code.read_bytes()).hexdigest()
    manifest.write_text(json.dumps(recorded))
    _forget()
    with pytest.warns(kernel_cache.KernelCacheWarning, match="do not match"):
        _kernel()


# ------------------------------------------------------------------------------- tampered compiled-system entries


def _forge_system(folder: Path, change, sign: bool) -> None:
    """Change the user's linear entry and recompute its checksum: a plain SHA-256 (a forger who knows the format),
    or, with ``sign``, under the cache's own key where there is one (a forger who can read it: the checks of the
    data must still hold)."""
    (path,) = [p for p in (folder / "systems").glob("*.json")
               if json.loads(p.read_text())["request"].get("kind") == "compiled"]
    entry = json.loads(path.read_text())
    change(entry["data"])
    body = {k: v for k, v in entry.items() if k != "checksum"}
    key = getattr(system_cache, "_key", lambda: None)() if sign else None
    path.write_text(json.dumps({**body, "checksum": system_cache._checksum(body, key) if key
                                else system_cache._checksum(body)}))


def _observable_constant(data: dict) -> None:
    """The error's value function returns 0.123 instead of what it computes."""
    function = data["observables"][0]["value"]
    lines = function["source"].rstrip("\n").splitlines()
    indent = lines[-1][: len(lines[-1]) - len(lines[-1].lstrip())]
    function["source"] = "\n".join(lines[:-1] + [f"{indent}return 0.123 + 0*({lines[-1].strip()[7:]})"]) + "\n"


def _averages_power_tower(data: dict) -> None:
    function = data["functions"]["averages_function"]
    lines = function["source"].splitlines()
    lines.insert(1, "    x0 = 10**10**10")
    function["source"] = "\n".join(lines) + "\n"


TAMPERED = {
    "a changed value (plain checksum)": (_observable_constant, False),
    "a huge average count": (lambda d: d.update(averages_count=10**12), True),
    "a negative average count": (lambda d: d.update(averages_count=-3), True),
    "no averages function": (lambda d: d["functions"].update(averages_function=None), True),
    "a power tower": (_averages_power_tower, True),
}


@pytest.mark.parametrize("name", TAMPERED)
def test_a_tampered_compiled_system_is_refused_and_derived_again(name, cache_folder, monkeypatch, tmp_path):
    monkeypatch.setattr(system_cache, "SHIPPED", tmp_path / "nothing shipped")     # the user's entry is read
    change, sign = TAMPERED[name]
    expected = symrmt.linear_error(c=0.5, gamma=0.3, form="quadrature")
    _forget()
    _forge_system(cache_folder, change, sign)
    _forget()
    with deadline(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = symrmt.linear_error(c=0.5, gamma=0.3, form="quadrature")
    assert np.array_equal(np.asarray(got), np.asarray(expected)), f"{name}: the tampered entry was used"


def test_two_models_under_one_name_do_not_share_an_entry():
    linear, attention = registry.get("linear"), registry.get("attention")
    impostor = dataclasses.replace(attention, name="linear")
    assert registry._request(impostor, 1, "quadrature") != registry._request(linear, 1, "quadrature")


# ------------------------------------------------------------------------------------------------------ escapes


def test_an_escape_sequence_in_a_parameter_name_is_printed_escaped(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = run_case(Case("check --param ESC", ["check", "--f", "tanh(s*x)", "--param", "s\x1b[31m=1"], "--param"),
                    tmp_path, capsys)
    assert "\x1b" not in line and "\\x1b" in line


def test_a_tilde_that_names_no_user_creates_no_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "~nosuchuser_symrmt/cache")
    _forget()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        symrmt.hermite("tanh(x)")
    assert not (tmp_path / "~nosuchuser_symrmt").exists()


def test_the_trust_section_states_the_readers_bounds():
    """docs/usage.md's "What symrmt trusts" quotes the reader's bounds: they are these numbers."""
    from symrmt.nonlinearity import serial

    text = (Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text()
    section = text[text.index("## What symrmt trusts"):text.index("## The documentation site")]
    flat = " ".join(section.split())
    assert (serial.MAX_NODES, serial.MAX_DEPTH, serial.MAX_BITS, serial._MAX_DIGITS,
            serial._MAX_FUNCTION_INTEGER) == (20_000, 200, 100_000, 4000, 1000)
    for quoted in ("20 000 nodes", "200 levels", "4000-digit integers", "100 000 bits", "at most 1000"):
        assert quoted in flat, quoted
