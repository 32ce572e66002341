"""A new f's first answer: ``timeout`` is wall-clock seconds for the whole search, numbers come from a verified
quadrature that takes milliseconds for a smooth f, and ``--method numeric`` / ``--timeout`` reach it from the CLI.

Timings are bounded generously (the machine is shared: a bound of a few seconds holds at a load of 20 on 2 cores);
each bound would fail by a wide margin under the old CPU budget per integral (13 s for gelu before).
"""
from __future__ import annotations

import time

import pytest

from symrmt.nonlinearity import hermite, hermite_options
from symrmt.nonlinearity import coefficients
from symrmt.nonlinearity.parse import parse_nonlinearity

#: SymPy takes far longer than this for gelu's nu: the search must end at the deadline.
SHORT = 0.3


def test_timeout_is_wall_clock_for_the_whole_search(monkeypatch):
    """hermite(gelu, center=True, timeout=0.3) returns within 0.3 s of search plus the quadrature and the process
    starts (a few seconds at most even on a loaded machine), with the data SymPy did not find numeric."""
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")
    hermite("erf(x)/3 + x/7", method="numeric")            # the imports a first quadrature pays, paid before the clock
    start, cpu = time.monotonic(), time.process_time()
    h = hermite("(1.7)*((-3)*gelu((1/2)*x))", center=True, timeout=SHORT)
    elapsed, cpu = time.monotonic() - start, time.process_time() - cpu
    # was 13 s with timeout=3.0 as a CPU budget per integral; now the deadline, and the parent's own work (0.05 s
    # of CPU idle, stretched tenfold at a load of 18 on 2 cores)
    assert elapsed < SHORT + 3.0, elapsed
    assert cpu < 1.0, cpu
    assert h.source["nu"] == "numeric" and h.a0 == 0.0


def test_a_smooth_f_is_verified_in_float64_and_a_kink_away_from_zero_in_30_digits():
    """The float64 route (three Gauss-Hermite rules agreeing to 1e-13 of the scale) answers a smooth f; an f whose
    rules disagree goes to the 30-digit quadrature, and both give the same numbers to 1e-13."""
    keys = ("a0", "a1", "a2", "nu")
    values, route = coefficients.verified_values(parse_nonlinearity("gelu(x)"), keys, "'gelu(x)'")
    assert route == "float64"
    reference = coefficients.numeric_coefficients(parse_nonlinearity("gelu(x)"), keys, "'gelu(x)'")
    for key in keys:
        assert abs(float(values[key]) - float(reference[key])) <= 1e-13 * max(1.0, abs(float(reference[key])))
    _, route = coefficients.verified_values(parse_nonlinearity("Abs(x - 1/3)"), keys, "'Abs(x - 1/3)'")
    assert route == "30-digit"


def test_hermite_options_set_the_defaults_of_a_block(monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")
    with hermite_options(method="numeric"):
        assert hermite("erf(x)").source["a1"] == "numeric"
    assert hermite("erf(x)").source["a1"] == "table"                 # outside the block: auto again
    with pytest.raises(ValueError, match="timeout"):
        with hermite_options(timeout=0):
            pass


def test_the_cli_takes_method_and_timeout(capsys, monkeypatch):
    from tests.cli.runner import assert_refused, run_json

    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")
    assert run_json(capsys, "hermite", "--f", "erf(x)", "--method", "numeric")["source"]["a1"] == "numeric"
    assert run_json(capsys, "hermite", "--f", "erf(x)")["source"]["a1"] == "table"
    out = run_json(capsys, "theory", "--f", "erf(x)", "--c", "1", "--gamma", "0.1", "--method", "auto",
                   "--timeout", "2")
    assert out["a1"] == pytest.approx(0.6514700158705599, rel=1e-14)
    assert_refused(capsys, ["hermite", "--f", "erf(x)", "--timeout", "0"], "--timeout '0'")


def test_a_command_still_working_after_a_second_says_what_it_does(capsys, monkeypatch):
    """On a terminal, a command busy for over NOTICE_DELAY names the innermost activity on stderr, once; a planted
    quick command says nothing."""
    import sys

    from symrmt.runtime import progress

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(progress, "NOTICE_DELAY", 0.05)
    with progress.notice_after("symrmt hermite", seconds=0.05), progress.activity("the Hermite data of f = x"):
        time.sleep(0.5)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "symrmt hermite: working on the Hermite data of f = x" in err, err
    with progress.notice_after("symrmt hermite", seconds=0.5):
        pass
    time.sleep(0.6)
    assert capsys.readouterr().err == ""


def test_a_larger_timeout_searches_again_where_the_disk_cache_holds_numeric_data(tmp_path, monkeypatch):
    """The disk keeps one entry per f: a first call cut short stores numeric data, and a call with a timeout above the
    default searches again (a planted cache that is always trusted would not call the computation)."""
    from symrmt.nonlinearity import api

    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path))
    api._hermite_cached.cache_clear()
    first = hermite("atan(x)/2 + x/9", timeout=0.05)
    assert first.source["nu"] == "numeric"
    calls = []
    compute = api.hermite_compute
    monkeypatch.setattr(api, "hermite_compute", lambda *a, **k: calls.append(a[3]) or compute(*a, **k))
    api._hermite_cached.cache_clear()                  # as a new process: only the disk remembers
    hermite("atan(x)/2 + x/9")
    assert calls == []                                  # the default timeout takes the stored entry
    api._hermite_cached.cache_clear()
    hermite("atan(x)/2 + x/9", timeout=2.0)
    assert calls == [2.0]
