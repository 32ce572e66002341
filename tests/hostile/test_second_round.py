"""Hostile inputs of the second probe: formulas that hide code or text, pipes and devices given as input files,
flags that would be ignored in silence, and wrong types at the public Python functions.

Every case here was mishandled before the fix it guards (a hang, a traceback or "this is a bug", output
printed before a refusal, a flag ignored, a formula computed other than it reads): the CLI cases through
:func:`.harness.run_case` (exit 2, one line, files kept), the Python ones with ``pytest.raises(match=...)``.
"""
from __future__ import annotations

import json
import os
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import symrmt
import symrmt.sweep
import symrmt.testing
import symrmt.weights
from symrmt.errors import ParameterError, ParameterTypeError, SymrmtInputError

from .harness import Case, run_case

THEORY = ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1"]
MC = ["--f", "tanh(x)", "--c", "1", "--gamma", "1", "--n", "16", "--seeds", "2", "--quiet"]
SPEC = {"f": ["tanh(x)"], "c": [1], "n": [16], "gamma": [1], "seeds": 2}


def _spec(text: str, name: str = "s.json"):
    def make(folder: Path) -> None:
        (folder / name).write_text(text)
    return make


def _fifo(name: str):
    """A named pipe with no writer. Reading it waits forever; should a reader wait, a writer comes after 5 s
    and leaves at once (the reader then sees an empty file), so a regression fails its case instead of hanging."""
    def make(folder: Path) -> None:
        path = folder / name
        os.mkfifo(path)

        def unblock() -> None:
            descriptor = os.open(path, os.O_RDWR)      # never waits: a reader and a writer at once
            time.sleep(0.5)
            os.close(descriptor)
        timer = threading.Timer(5.0, unblock)
        timer.daemon = True
        timer.start()
    return make


CASES = [
    # formulas: a comment or a control character would make f computed other than it is shown
    Case("hermite f with a comment", ["hermite", "--f", "x#+tanh(x)"], "'#'"),
    Case("theory f with a form feed", [*THEORY[:2], "tanh(\x0cx)", *THEORY[3:]], "U+000C"),   # was echoed raw
    Case("hermite f across lines", ["hermite", "--f", "tanh(\nx)"], "U+000A"),
    # names SymPy reads as non-finite or imaginary numbers are no parameters
    Case("hermite f = I*x", ["hermite", "--f", "I*x"], "imaginary unit"),
    Case("hermite f = sin(x) + I", ["hermite", "--f", "sin(x)+I"], "imaginary unit"),
    Case("hermite f = oo*x", ["hermite", "--f", "oo*x", "--json"], "reads as infinity"),
    Case("hermite f = zoo*x", ["hermite", "--f", "zoo*x"], "complex infinity"),
    Case("hermite f = nan*x", ["hermite", "--f", "nan*x", "--json"], "not a number"),
    Case("sweep spec f = tanh(I*x) with params I",
         ["sweep", "{tmp}/s.json", "--out", "{tmp}/r.jsonl", "--quiet", "--workers", "1"], "which no f has",
         setup=_spec(json.dumps({**SPEC, "f": ["tanh(I*x)"], "params": {"I": [1]}})), kept=["s.json"]),
    # --gram: a matrix that is not square
    Case("theory gram [[]]", [*THEORY, "--gram", "[[]]"], "square"),
    Case("theory gram [[1, 2]]", [*THEORY, "--gram", "[[1,2]]"], "square"),
    # input files that are pipes or devices: refused before they are read
    Case("sweep spec is a FIFO", ["sweep", "{tmp}/s.json", "--out", "{tmp}/r.jsonl", "--quiet"],
         "not a regular file", setup=_fifo("s.json")),
    Case("sweep summary of a FIFO", ["sweep", "--summary", "{tmp}/r.jsonl"], "not a regular file",
         setup=_fifo("r.jsonl")),
    Case("sweep summary of /dev/null", ["sweep", "--summary", "/dev/null"], "not a regular file"),
    # sweep specs: numbers whose product overflows
    Case("sweep spec c = 1e308", ["sweep", "{tmp}/s.json", "--out", "{tmp}/r.jsonl", "--quiet"], "c contains",
         setup=_spec(json.dumps({**SPEC, "c": [1e308]})), kept=["s.json"]),
    Case("sweep spec n = 10**400", ["sweep", "{tmp}/s.json", "--out", "{tmp}/r.jsonl", "--quiet"], "far too large",
         setup=_spec(json.dumps(SPEC).replace('"n": [16]', '"n": [1' + "0" * 400 + "]")), kept=["s.json"]),
    # outputs: '-' is not stdout here
    Case("sweep out '-'", ["sweep", "{tmp}/s.json", "--out", "-", "--quiet"], "not standard output",
         setup=_spec(json.dumps(SPEC)), kept=["s.json"]),
    # flags that would be ignored in silence
    Case("sweep --csv without --summary", ["sweep", "{tmp}/s.json", "--out", "{tmp}/r.jsonl", "--csv", "{tmp}/c.csv"],
         "--csv writes the table of --summary", setup=_spec(json.dumps(SPEC)), kept=["s.json"]),
    Case("theory --layer without --weights", [*THEORY, "--layer", "0"], "--layer applies only to --weights"),
    Case("theory --head without --weights", [*THEORY, "--head", "1"], "--head applies only"),
    Case("theory --heads without --weights", [*THEORY, "--heads", "2"], "--heads applies only"),
    Case("theory --signal without --weights", [*THEORY, "--signal", "top"], "--signal applies only"),
    Case("theory --weights-scale without --weights", [*THEORY, "--weights-scale", "model"],
         "--weights-scale applies only"),
    Case("simulate --matrix kernel without --spectrum", ["simulate", *MC, "--matrix", "kernel"],
         "chooses the matrix of --spectrum"),
    Case("compare --matrix kernel without --spectrum", ["compare", *MC, "--matrix", "kernel"],
         "chooses the matrix of --spectrum"),
    Case("figure --list with a name", ["figure", "--list", "rank"], "--list lists every figure and draws none"),
    # a refusal prints nothing on stdout (the demo printed its header first)
    Case("demo n = 0", ["demo", "--n", "0", "--seeds", "2", "--plot", ""], "n = 0"),
]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                 # a default name lands in the test's folder
    return tmp_path


@pytest.mark.parametrize("case", CASES, ids=str)
def test_cli(case, folder, capsys):
    run_case(case, folder, capsys)


@pytest.mark.slow                               # waits the guard's 5 s
def test_a_fifo_case_finishes_even_if_the_fifo_is_read(folder):
    """The FIFO cases' guard: a reader that waits on the pipe gets an end of file after 5 s, not a hang."""
    _fifo("p")(folder)
    start = time.monotonic()
    with open(folder / "p", "rb") as handle:
        assert handle.read() == b""
    assert time.monotonic() - start < 30


# --------------------------------------------------------------------------- the Python API

def _api_cases():
    spec = dict(f="tanh(x)", n=16, gamma=[1.0], seeds=2)
    verify = symrmt.testing.verify
    return [
        # a masked entry was computed with its hidden value
        ("attention_error c masked", lambda: symrmt.attention_error("tanh(x)", np.ma.masked_array([1.0], mask=[True]),
                                                                    1.0), ParameterError, "has masked entries"),
        ("simulate gamma masked", lambda: symrmt.simulate("tanh(x)", 16, 1.0, np.ma.masked_array([1.0, 2.0],
                                                          mask=[True, False]), seeds=2, progress=False),
         ParameterError, "has masked entries"),
        # booleans that were read by their truth value
        ("attention_error partial=nan", lambda: symrmt.attention_error("tanh(x)", 1.0, 1.0, partial=np.nan),
         ParameterTypeError, "partial = nan: must be True or False"),
        ("spectral_density partial='yes'", lambda: symrmt.spectral_density("tanh(x)", 1.0, [0.5], partial="yes"),
         ParameterTypeError, "partial = 'yes': must be True or False"),
        ("simulate random_frame=nan",
         lambda: symrmt.simulate("tanh(x)", 16, 1.0, 1.0, seeds=2, random_frame=np.nan, progress=False),
         ParameterTypeError, "random_frame = nan"),
        ("simulate progress=[]", lambda: symrmt.simulate("tanh(x)", 16, 1.0, 1.0, seeds=2, progress=np.array([])),
         ParameterTypeError, "progress = "),
        ("converge allow_long=nan",
         lambda: symrmt.converge("tanh(x)", 1.0, 1.0, ns=[16, 24, 32], seeds=2, allow_long=np.nan, progress=False),
         ParameterTypeError, "allow_long = nan"),
        ("verify shrink=nan", lambda: verify("x", examples=1, shrink=np.nan, properties=["large_gamma"]),
         ParameterTypeError, "shrink = nan"),
        ("verify properties=3.0", lambda: verify("x", examples=1, properties=3.0), ParameterTypeError,
         "give a list of property names"),
        ("verify properties=[1]", lambda: verify("x", examples=1, properties=[1]), ParameterTypeError,
         "named by a string"),
        # choices compared with an array
        ("attention_error form=array", lambda: symrmt.attention_error("tanh(x)", 1.0, 1.0, form=np.array([1.0, 2.0])),
         ParameterTypeError, "form = array"),
        ("hermite method=array", lambda: symrmt.hermite("tanh(x)", method=np.array([1.0, 2.0])), SymrmtInputError,
         "method must be 'auto'"),
        # names and paths of the wrong type
        ("parse_nonlinearity parameters=1.0", lambda: symrmt.parse_nonlinearity("tanh(s*x)", parameters=1.0),
         ParameterTypeError, "give a list of parameter names"),
        ("parse_nonlinearity parameters=array(1.0)",
         lambda: symrmt.parse_nonlinearity("tanh(s*x)", parameters=np.array(1.0)), ParameterTypeError,
         "give a list of parameter names"),
        ("verify properties=array(1.0)", lambda: verify("x", examples=1, properties=np.array(1.0)), ParameterTypeError,
         "give a list of property names"),
        ("parse_nonlinearity parameters=['I']", lambda: symrmt.parse_nonlinearity("tanh(I*x)", parameters=["I"]),
         SymrmtInputError, "parameter name 'I' is not allowed"),
        ("parse_nonlinearity 'x#y'", lambda: symrmt.parse_nonlinearity("x#+y"), SymrmtInputError, "'#'"),
        ("load_spec(1.0)", lambda: symrmt.sweep.load_spec(1.0), ParameterTypeError, "spec = 1.0: give the file's path"),
        ("summarize(nan)", lambda: symrmt.sweep.summarize(np.nan), ParameterTypeError, "result file = nan"),
        ("read_weights(3)", lambda: symrmt.weights.read_weights(3), ParameterTypeError, "source = 3"),
        # ragged nested lists
        ("attention_error gram ragged", lambda: symrmt.attention_error("tanh(x)", 1.0, 1.0, gram=[1, [2]]),
         SymrmtInputError, "must be a square matrix of numbers"),
        ("attention_error weights ragged", lambda: symrmt.attention_error("tanh(x)", 1.0, 1.0, weights=[1, [2]]),
         SymrmtInputError, "weights: not an array of numbers"),
        ("converge ns ragged", lambda: symrmt.converge("tanh(x)", 1.0, 1.0, ns=[1, [2]], progress=False),
         SymrmtInputError, "give at least three integer sizes"),
        ("converge seeds ragged",
         lambda: symrmt.converge("tanh(x)", 1.0, 1.0, ns=[16, 24, 32], seeds=[1, [2]], progress=False),
         SymrmtInputError, "give one integer in 2"),
        # sweep specs whose c*n overflows
        ("parse_spec c=1e308", lambda: symrmt.sweep.parse_spec({**spec, "c": 1e308}), SymrmtInputError,
         r"every value must be in \[1e-06"),
        ("parse_spec n=10**400", lambda: symrmt.sweep.parse_spec({**spec, "c": 1.0, "n": 10**400}), SymrmtInputError,
         "far too large"),
    ]


@pytest.mark.parametrize("name, call, kind, match", _api_cases(), ids=[c[0] for c in _api_cases()])
def test_api(name, call, kind, match):
    with pytest.raises(kind, match=match):
        call()


def test_weights_of_the_wrong_size_are_refused_before_their_entries_are_read():
    """A 20000 x 20000 view for p = 16: refused by its shape, before a check of the entries copies it (400 MB
    of booleans for isfinite; a 10^5 x 10^5 view took 9 GiB). NumPy reports its buffers to tracemalloc."""
    big = np.broadcast_to(1.0, (20_000, 20_000))
    tracemalloc.start()
    try:
        with pytest.raises(SymrmtInputError, match="weights are 20000 x 20000 but p"):
            symrmt.simulate("tanh(x)", 16, 1.0, 1.0, seeds=2, weights=big, progress=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, f"{peak / 2**20:.0f} MiB allocated"
