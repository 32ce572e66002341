"""Resources: runs that would not fit in memory or in time are refused before the work, with the estimate
(category "resources" of the hostile-input suite), and nothing spins under an address-space limit.

The CLI cases go through the harness (exit status 2, one line, nothing left behind); the Python cases check
the error class and the line; the ``ulimit -v`` cases run a child process under ``RLIMIT_AS`` with a timeout
that kills it.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.runtime import memory
from symrmt.simulation import threads

from .harness import Case, run_case


def _gram(rank: int) -> str:
    """A valid Gram matrix of rank-``rank`` weights, as --gram's JSON."""
    vectors = np.random.default_rng(0).standard_normal((2 * rank + 1, 200)) / np.sqrt(200)
    return json.dumps((vectors @ vectors.T).round(6).tolist())


CASES = [
    Case("simulate-n-300000", ["simulate", "--f", "tanh(x)", "--n", "300000", "--c", "1", "--gamma", "0.1", "--quiet"],
         "needs about"),
    Case("spectrum-n-300000", ["simulate", "--f", "tanh(x)", "--n", "300000", "--c", "1", "--gamma", "0.1",
                               "--spectrum", "--quiet"], "simulate_spectrum(matrix='gram') needs about"),
    Case("theory-gram-rank-32", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--gram", _gram(32)],
         "rank r = 32"),
    Case("converge-100000-seeds", ["converge", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--ns", "8,12,16",
                                   "--seeds", "100000", "--quiet"], "seeds = 100000"),
    Case("converge-largest-n-300000", ["converge", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--ns",
                                       "64,128,300000", "--quiet"], "the largest size of the ladder, needs about"),
    Case("theory-grid-1e10-points", ["theory", "--f", "tanh(x)", "--c", "0.5:2:100000", "--gamma", "0.1:1:100000log"],
         "10000000000 values"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_resource_case(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)


def test_the_converge_refusal_gives_the_estimate(tmp_path, capsys):
    line = run_case(CASES[3], tmp_path, capsys)
    assert "it would take about" in line and "--allow-long" in line


# ----------------------------------------------------------------------------- grids from Python

_C, _GAMMA = np.linspace(0.5, 2, 100_000)[:, None], np.linspace(0.1, 2, 100_000)
_HEADS_GRAM = np.diag([1.0, 1.0, 0.5, 1.0, 0.5])


def _attention():
    from symrmt import attention_error
    return attention_error("tanh(x)", _C, _GAMMA)


def _linear():
    from symrmt import linear_error
    return linear_error(_C, _GAMMA)


def _softmax():
    from symrmt.theory.softmax import softmax_error
    return softmax_error(_C, _GAMMA)


def _heads():
    from symrmt.theory.heads import summed_heads_error
    return summed_heads_error("tanh(x)", _C, _GAMMA, _HEADS_GRAM, heads=2)


@pytest.mark.parametrize("call", [_attention, _linear, _softmax, _heads], ids=lambda f: f.__name__[1:])
def test_a_grid_whose_broadcast_would_not_fit_is_refused_with_its_size(call):
    """1e5 x 1e5 points: refused from the broadcast shape, before an array of that size exists (MemoryError)."""
    with pytest.raises(ParameterError) as refusal:
        call()
    line = str(refusal.value)
    assert "\n" not in line and "1e+10 points (100000, 100000)" in line and "TiB" in line


# ----------------------------------------------------------------------------- the limits read

def test_the_tightest_limit_is_the_one_named(monkeypatch):
    monkeypatch.setattr(memory, "address_space_limit", lambda: 3 * 2**30)
    monkeypatch.setattr(memory, "address_space_used", lambda: 2**30)
    monkeypatch.setattr(memory, "cgroup_memory", lambda: (8 * 2**30, 2**30))
    monkeypatch.setattr(memory, "mem_available", lambda: 16 * 2**30)
    assert memory.available() == memory.Budget(2 * 2**30, "under ulimit -v (RLIMIT_AS)")
    monkeypatch.setattr(memory, "cgroup_memory", lambda: (2 * 2**30, 2**30))
    assert memory.available() == memory.Budget(2**30, "under the cgroup's memory limit")
    monkeypatch.setattr(memory, "mem_available", lambda: 2**29)
    assert memory.available().source == "by MemAvailable"


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_cgroup_limit_is_read_in_both_versions(monkeypatch, tmp_path, version):
    names = ("memory.max", "memory.current") if version == "v2" else ("memory.limit_in_bytes", "memory.usage_in_bytes")
    (tmp_path / names[0]).write_text("1073741824\n")
    (tmp_path / names[1]).write_text("268435456\n")
    unlimited = tmp_path / "root"
    unlimited.mkdir()
    (unlimited / names[0]).write_text("max\n" if version == "v2" else "9223372036854771712\n")
    monkeypatch.setattr(memory, "_cgroup_folders", lambda: [(str(unlimited), *names), (str(tmp_path), *names)])
    assert memory.cgroup_memory() == (2**30, 2**28)
    monkeypatch.setattr(memory, "_cgroup_folders", lambda: [(str(unlimited), *names)])
    assert memory.cgroup_memory() is None


def test_simulate_refuses_against_the_address_space_limit(monkeypatch):
    """The limit that binds is ulimit -v (1 GiB left), not MemAvailable: n = 12000 is refused, naming it."""
    from symrmt import simulate

    monkeypatch.setattr(memory, "address_space_limit", lambda: 2 * 2**30)
    monkeypatch.setattr(memory, "address_space_used", lambda: 2**30)
    with pytest.raises(ParameterError, match=r"n = 12000.*1 GiB of memory are available under ulimit -v"):
        simulate("tanh(x)", 12000, 1.0, [0.1], seeds=2, progress=False)


def test_no_second_blas_thread_without_room_for_it(monkeypatch):
    """Under an address-space limit too tight for a thread's stack, arena and OpenBLAS buffer, the pair runs in
    the calling thread; with room (planted: no limit) it runs in two."""
    seen = []
    first = second = lambda: seen.append(threading.get_ident())
    strategy = threads.Strategy("pair", True, 1)
    monkeypatch.setattr(memory, "address_space_limit", lambda: 2**30)
    monkeypatch.setattr(memory, "address_space_used", lambda: 2**30 - memory.THREAD_RESERVE // 2)
    threads.run_pair(first, second, strategy)
    assert seen == [threading.get_ident()] * 2
    seen.clear()
    monkeypatch.setattr(memory, "address_space_limit", lambda: None)
    threads.run_pair(first, second, strategy)
    assert len(set(seen)) == 2


# ----------------------------------------------------------------------------- under ulimit -v, for real

_CHILD = textwrap.dedent("""
    import re, resource, sys
    from symrmt.cli import main
    import symrmt.simulation, scipy.linalg, numpy as np
    np.ones((64, 64)) @ np.ones((64, 64))        # the main thread's BLAS buffer, before the limit
    used = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
    limit = used + int(sys.argv[1]) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.exit(main(sys.argv[2:]))
""")


def _limited(headroom_mib: int, *argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``symrmt argv`` in a child whose address space is limited to what it maps after its imports plus
    ``headroom_mib``; killed (and the test failed) if it runs past ``timeout``."""
    import symrmt

    root = os.path.dirname(os.path.dirname(os.path.abspath(symrmt.__file__)))     # the symrmt under test
    env = {**os.environ, "PYTHONPATH": root, "SYMRMT_JIT": "never"}
    try:
        return subprocess.run([sys.executable, "-c", _CHILD, str(headroom_mib), *argv], capture_output=True,
                              text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"symrmt {' '.join(argv)} under ulimit -v (+{headroom_mib} MiB) ran past {timeout} s: a spin")


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status") or not hasattr(resource, "RLIMIT_AS"),
                    reason="needs Linux's /proc and RLIMIT_AS")
@pytest.mark.parametrize("headroom", [60, 80, 100, 120, 180, 300])
def test_simulate_under_ulimit_v_ends(headroom):
    """n = 32 with the default BLAS threads, the limit at 60..300 MiB above what the process maps: it answers or
    refuses in one line, never spins (OpenBLAS retries a failed buffer mmap forever; runtime/memory.py).

    Planted (measured once by hand, not run here: a spin costs the timeout): without the thread guard and the
    limit-aware memory check, headroom 80 spun until killed and 60 and 100 ended in "can't start new thread";
    without the memory check alone, 60 spun."""
    done = _limited(headroom, "simulate", "--f", "tanh(x)", "--n", "32", "--c", "1", "--gamma", "0.1", "--quiet",
                    "--json")
    assert done.returncode in (0, 2), done.stderr[-2000:]
    if done.returncode == 2:
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    else:
        assert json.loads(done.stdout)["n"] == 32


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status") or not hasattr(resource, "RLIMIT_AS"),
                    reason="needs Linux's /proc and RLIMIT_AS")
@pytest.mark.parametrize("argv", [("--n", "12000"), ("--n", "30000", "--spectrum")], ids=["simulate", "spectrum"])
def test_large_runs_under_ulimit_v_are_refused_in_one_line(argv):
    done = _limited(1024, "simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--quiet", *argv)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "available under ulimit -v" in lines[0], lines


# ----------------------------------------------------------------------------- the caps the docs state

def test_the_documented_caps():
    """docs/usage.md: 2000 seeds a size, an hour, rank 21 and above (30 s of CPU), about 100 s at rank 32."""
    from symrmt.analysis.convergence import MAX_SECONDS, MAX_SEEDS
    from symrmt.theory.forms import MAX_COMPILE_SECONDS, compile_seconds

    assert (MAX_SEEDS, MAX_SECONDS, MAX_COMPILE_SECONDS) == (2000, 3600.0, 30.0)
    assert compile_seconds(20) <= MAX_COMPILE_SECONDS < compile_seconds(21) and round(compile_seconds(32), -1) == 100


def test_allow_long_lets_a_ladder_over_the_cap_run(monkeypatch):
    """The cap refuses (planted: a cap of 4 seeds) and allow_long goes on with the same ladder."""
    from symrmt import converge
    from symrmt.analysis import convergence

    monkeypatch.setattr(convergence, "MAX_SEEDS", 4)
    ladder = dict(ns=[8, 12, 16], seeds=[3, 3, 5], progress=False)
    with pytest.raises(ParameterError, match=r"seeds = 5 at a size, over the cap of 4: it would take about"):
        converge("tanh(x)", 1.0, [0.1], **ladder)
    assert converge("tanh(x)", 1.0, [0.1], allow_long=True, **ladder).seeds.tolist() == [3, 3, 5]
