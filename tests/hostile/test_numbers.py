"""Hostile numbers: seeds, layer and head numbers, temperatures, gamma, c and Gram entries of the wrong kind.

Each kind of argument has one reader shared by the command line and the Python API (:mod:`symrmt.validate`):
the same mistake gets the same refusal everywhere, in one line that quotes the value the user gave.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import symrmt
from symrmt.errors import ParameterError, ParameterTypeError, shown
from symrmt.theory import softmax_error, summed_heads_error
from symrmt.theory.softmax import largest_temperature, softmax_hermite, softmax_share

from .harness import Case, run_case

BIG = str(2**70)                                  # beyond int64: never printed as a wrapped negative number
HUGE = "7" * 5000                                 # beyond what Python converts to an int (4300 digits)
MC = ["--f", "tanh(x)", "--c", "1", "--gamma", "1", "--n", "16", "--seeds", "2", "--quiet"]
LADDER = ["--f", "tanh(x)", "--c", "1", "--gamma", "1", "--ns", "16,24,32", "--quiet"]


def _model(folder):
    """A BERT-style file with 6 layers of width 8 and 2 heads (config.json beside it)."""
    safetensors = pytest.importorskip("safetensors")           # noqa: F841 - the weights extra
    from weights.files import bert_tensors, write

    write(folder / "m.safetensors", bert_tensors(np.random.default_rng(0), p=8, layers=6),
          {"num_attention_heads": 2, "hidden_size": 8})


def _spec(seeds):
    def setup(folder):
        (folder / "spec.json").write_text('{"f": "tanh(x)", "c": [1.0], "n": [16], "gamma": [0.1], '
                                          f'"seeds": {seeds}}}')
    return setup


EYE5 = np.eye(5)
WEIGHTS = ["weights", "{tmp}/m.safetensors", "--rank-max", "2"]
THEORY_WEIGHTS = ["theory", "--weights", "{tmp}/m.safetensors", "--f", "tanh(x)", "--c", "1", "--gamma", "1"]

CASES = [
    # seeds: one reader (validate.seed, validate.seed_count) for simulate, compare, converge, sweep, figure
    Case("simulate seed -1", ["simulate", *MC, "--seed", "-1"], "seed = -1: must be an integer in 0..2**63-1"),
    Case("simulate seed 2**70", ["simulate", *MC, "--seed", BIG], f"seed = {BIG}"),
    Case("simulate seed 2**63", ["simulate", *MC, "--seed", str(2**63)], "0..2**63-1"),
    Case("simulate seeds 2**70", ["simulate", *MC[:-3], "--seeds", BIG], f"seeds = {BIG}"),
    Case("simulate seed 007", ["simulate", *MC, "--seed", "007"], "'007' is not an integer written plainly"),
    Case("simulate seed 1e3", ["simulate", *MC, "--seed", "1e3"], "not an integer written plainly"),
    Case("compare seed -1", ["compare", *MC, "--seed", "-1"], "seed = -1"),
    Case("compare seeds 2**70", ["compare", *MC[:-3], "--seeds", BIG], f"seeds = {BIG}"),
    Case("converge seed -1", ["converge", *LADDER, "--seed", "-1"], "seed = -1"),
    Case("converge seed 2**70", ["converge", *LADDER, "--seed", BIG], f"seed = {BIG}"),
    Case("converge seeds 2**70", ["converge", *LADDER, "--seeds", BIG], f"seeds = {BIG}"),
    Case("converge seeds list 2**70", ["converge", *LADDER, "--seeds", f"3,{BIG},4"], f"seeds = {BIG}"),
    Case("figure seeds 2**70", ["figure", "random_inputs", "--quick", "--out", "{tmp}/fig", "--seeds", BIG],
         f"seeds = {BIG}"),
    Case("figure seeds -1", ["figure", "random_inputs", "--quick", "--out", "{tmp}/fig", "--seeds", "-1"],
         "seeds = -1"),
    Case("sweep seeds 2**70", ["sweep", "{tmp}/spec.json", "--out", "{tmp}/r.jsonl"], f"seeds = {BIG}",
         setup=_spec(BIG), kept=["spec.json"]),
    Case("check seed -1", ["check", "--f", "tanh(x)", "--seed", "-1"], "seed = -1"),
    Case("seed of 5000 digits", ["simulate", *MC, "--seed", HUGE], "an integer of 5000 digits"),
    # layer and head numbers: bounded by the file's own counts, named in the message
    Case("weights layer 7", [*WEIGHTS, "--layer", "7"], "layer 7: the file has 6 layers (0-5)", setup=_model,
         kept=["m.safetensors"]),
    Case("weights layer -1", [*WEIGHTS, "--layer", "-1"], "layer -1: the file has 6 layers (0-5)", setup=_model),
    Case("weights layer 00", [*WEIGHTS, "--layer", "00"], "'00' is not an integer written plainly", setup=_model),
    Case("weights layer +1", [*WEIGHTS, "--layer", "+1"], "e.g. 1", setup=_model),
    Case("weights layer 5000 digits", [*WEIGHTS, "--layer", HUGE], "an integer of 5000 digits", setup=_model),
    Case("weights layer 4000 digits", [*WEIGHTS, "--layer", "9" * 4000],
         "layer <an integer of 4000 digits>: the file has 6 layers", setup=_model),
    Case("weights head -1", [*WEIGHTS, "--head", "-1"], "head -1: the model has 2 heads (0-1)", setup=_model),
    Case("weights head 2", [*WEIGHTS, "--head", "2"], "head 2: the model has 2 heads (0-1)", setup=_model),
    Case("theory weights layer 6", [*THEORY_WEIGHTS, "--layer", "6"], "layer 6: the file has 6 layers (0-5)",
         setup=_model),
    Case("theory weights head -1", [*THEORY_WEIGHTS, "--layer", "0", "--head", "-1"],
         "head -1: the model has 2 heads (0-1)", setup=_model),
    Case("theory weights layer 00", [*THEORY_WEIGHTS, "--layer", "00"], "not an integer written plainly",
         setup=_model),
    # temperatures: computed, or refused for a reason about tau (naming the largest tau this gamma allows)
    Case("softmax theory tau 1e6", ["theory", "--attention", "softmax", "--temperature", "1e6", "--c", "1",
                                    "--gamma", "1e-4,1"], "", status=0),
    Case("softmax theory tau 1e8", ["theory", "--attention", "softmax", "--temperature", "1e8", "--c", "1",
                                    "--gamma", "1"], "the largest temperature is 1e+06"),
    Case("softmax theory tau 1e155", ["theory", "--attention", "softmax", "--temperature", "1e155", "--c", "1",
                                      "--gamma", "0.1"], "temperature = 1e+155 with gamma = 0.1"),
    Case("softmax theory tau 1e300", ["theory", "--attention", "softmax", "--temperature", "1e300", "--c", "1",
                                      "--gamma", "0.1"], "more than 1e308"),
    Case("softmax simulate tau 1e155", ["simulate", "--attention", "softmax", "--temperature", "1e155", "--c", "1",
                                        "--gamma", "1", "--n", "16", "--seeds", "2", "--quiet"], "", status=0),
    Case("softmax compare tau 1e8", ["compare", "--attention", "softmax", "--temperature", "1e8", *MC[2:]],
         "temperature = 1e+08 with gamma = 1"),
    Case("softmax tau 0", ["theory", "--attention", "softmax", "--temperature", "0", "--c", "1", "--gamma", "1"],
         "temperature"),
    # gamma and c: the value as given
    Case("c of a million digits", ["theory", "--f", "tanh(x)", "--c", "1" * 10**6, "--gamma", "1"],
         "(1000000 characters)"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_numbers(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)


def test_softmax_json_at_large_tau_is_the_linear_limit(capsys):
    """tau = 1e6: the data of f/a_1 are (1, 1 + 1/(2 tau^2)) without cancellation, and E is the linear-f error at
    gamma/a_1^2 = gamma tau^2 e^(-1/tau^2) (the limit tau -> infinity), to the solver's tolerance."""
    tau, gamma = 1e6, np.array([1e-2, 1.0])
    e = softmax_error(1.0, gamma, temperature=tau)
    linear = symrmt.attention_error((1.0, 1.0), 1.0, gamma * tau**2 * math.exp(-1 / tau**2))
    assert np.allclose(e, linear, rtol=1e-8, atol=0)
    assert np.all(np.isfinite(e)) and np.all(e > 0.999)             # ridge 1e8..1e12 on unit features: E ~ 1


@pytest.mark.parametrize("tau", [1e3, 1e6, 1e7, 1e12, 1e100, 1e200])
def test_softmax_share_has_no_cancellation(tau):
    """nu/a_1^2 = (e^u - 1)/u, u = 1/tau^2: at least 1 and within 1e-15 of its series 1 + u/2 + u^2/6 + u^3/24
    (the next term, u^4/120, is below 1e-25 from tau = 1e3). The planted naive
    formula (nu/a_1^2 from softmax_hermite's nu and a_1) loses every digit of u near tau = 1e6..1e7."""
    u = (1 / tau) ** 2
    share = float(softmax_share(tau))
    assert share >= 1.0 and abs(share - (1 + u / 2 + u**2 / 6 + u**3 / 24)) <= 1e-15
    a1, nu = (float(v) for v in softmax_hermite(tau))
    if tau in (1e6, 1e7):                                              # the planted error: e^{2u} - e^u naively
        naive = (math.exp(2 * u) - math.exp(u)) / a1**2
        assert abs(naive - (1 + u / 2)) > 1e-6


def test_largest_temperature_is_the_edge_of_the_refusal():
    """At gamma = 1 the largest tau of the message is solved, and 1.01 times it is refused."""
    tau = largest_temperature(1.0)
    assert np.isfinite(softmax_error(1.0, 1.0, temperature=tau * 0.999))
    with pytest.raises(ParameterError, match="the largest temperature is 1e\\+06"):
        softmax_error(1.0, 1.0, temperature=tau * 1.01)


def test_softmax_simulate_at_huge_tau_is_the_uniform_softmax():
    """tau = 1e155 (where tau**2 overflows): every key gets weight 1/(n-1), the same draw as tau = 1e300."""
    runs = [symrmt.simulate(None, attention="softmax", temperature=t, n=16, c=1.0, gamma=1.0, seeds=2, progress=False)
            for t in (1e155, 1e300)]
    assert np.all(np.isfinite(runs[0].attention_per_seed))
    assert np.array_equal(runs[0].attention_per_seed, runs[1].attention_per_seed)


def _refusal(call) -> str:
    with pytest.raises(ParameterError) as info:
        call()
    return str(info.value)


def test_messages_quote_the_value_given_not_a_rescaled_one():
    """softmax solves f/a_1 at gamma/a_1^2 and summed heads one head at gamma/H^2 with a rescaled Gram matrix:
    their refusals quote the user's gamma and Gram entries (gamma = -0.1, not -0.1/a_1^2 or -0.025)."""
    a1 = float(softmax_hermite(2.0)[0])
    line = _refusal(lambda: softmax_error(1.0, -0.1, temperature=2.0))
    assert line.startswith("gamma = -0.1:") and f"{-0.1 / a1**2:g}" not in line
    line = _refusal(lambda: summed_heads_error("tanh(x)", 1.0, -0.1, EYE5, heads=2))
    assert line.startswith("gamma = -0.1:") and "-0.025" not in line
    line = _refusal(lambda: softmax_error(1.0, 0.1, temperature=1e8))
    assert line.startswith("temperature = 1e+08 with gamma = 0.1:")
    line = _refusal(lambda: summed_heads_error("tanh(x)", 1.0, 0.1, np.diag([1.0, 1.0, 1.0, 1.0, -1.0]), heads=2))
    assert "smallest eigenvalue -1 " in line and "-0.5" not in line


# ---------------------------------------------------------------------------------------------------------------
# Python API: text, booleans and complex numbers are a TypeError (ParameterTypeError), never a ComplexWarning
# ---------------------------------------------------------------------------------------------------------------

API = {
    "attention_error": lambda **k: symrmt.attention_error("tanh(x)", k.get("c", 1.0), k.get("gamma", 0.1),
                                                          d=k.get("d", 0.0), gram=k.get("gram")),
    "linear_error": lambda **k: symrmt.linear_error(k.get("c", 1.0), k.get("gamma", 0.1), gram=k.get("gram")),
    "softmax_error": lambda **k: softmax_error(k.get("c", 1.0), k.get("gamma", 0.1),
                                               temperature=k.get("temperature", 1.0), gram=k.get("gram")),
    "summed_heads_error": lambda **k: summed_heads_error("tanh(x)", k.get("c", 1.0), k.get("gamma", 0.1),
                                                         k.get("gram", EYE5), heads=2, d=k.get("d", 0.0)),
    "spectral_density": lambda **k: symrmt.spectral_density("tanh(x)", k.get("c", 1.0), k.get("x", [0.5, 1.0]),
                                                            d=k.get("d", 0.0), gram=k.get("gram"),
                                                            eta=k.get("eta", 0.0)),
    "simulate": lambda **k: symrmt.simulate("tanh(x)", n=16, c=k.get("c", 1.0), gamma=k.get("gamma", 0.1),
                                            d=k.get("d", 0.0), gram=k.get("gram"), seeds=2,
                                            seed=k.get("seed", 0), progress=False),
    "simulate_spectrum": lambda **k: symrmt.simulate_spectrum("tanh(x)", n=16, c=k.get("c", 1.0), d=k.get("d", 0.0),
                                                              gram=k.get("gram"), seeds=2, progress=False),
}
ARGUMENTS = {"attention_error": "c gamma d gram", "linear_error": "c gamma gram",
             "softmax_error": "c gamma temperature gram",
             "summed_heads_error": "c gamma d gram", "spectral_density": "c x d gram eta",
             "simulate": "c gamma d gram seed", "simulate_spectrum": "c d gram"}
WRONG = {"text": "1", "boolean": True, "complex": np.array([0.5 + 1j]), "complex scalar": 0.5 + 0j,
         "booleans": [True, False], "texts": ["1"], "bytes": b"1"}


def _wrong_gram(kind: str, size: int):
    eye = np.eye(size)
    return {"text": "x", "boolean": eye.astype(bool), "complex": eye * (1 + 1j), "complex scalar": eye + 0j,
            "booleans": eye.astype(bool).tolist(), "texts": eye.astype(str).tolist(), "bytes": b"x"}[kind]


def _refused_as_a_type(call) -> None:
    """``call`` raises ParameterTypeError (a TypeError and a ValueError), with no warning on the way."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # a ComplexWarning (imaginary part dropped) fails
        with pytest.raises(ParameterTypeError) as info:
            call()
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    assert "\n" not in str(info.value) and len(str(info.value)) < 400


@pytest.mark.parametrize("function, argument, kind",
                         [(f, a, k) for f, names in ARGUMENTS.items() for a in names.split() for k in WRONG])
def test_the_python_api_refuses_wrong_types_with_a_type_error(function, argument, kind):
    value = _wrong_gram(kind, 5 if function == "summed_heads_error" else 3) if argument == "gram" else WRONG[kind]
    _refused_as_a_type(lambda: API[function](**{argument: value}))


def test_the_type_check_catches_a_planted_dropped_imaginary_part():
    """The planted error: an API that casts its input with np.asarray(..., dtype=float), as softmax_error and
    summed_heads_error did, drops the imaginary part with a ComplexWarning; the check above fails on it."""
    def planted(gamma):
        return np.asarray(gamma, dtype=float)
    with pytest.raises((AssertionError, Warning, pytest.fail.Exception)):
        _refused_as_a_type(lambda: planted(np.array([0.5 + 1j])))


@pytest.mark.parametrize("seed, error", [(-1, ParameterError), (2**63, ParameterError), (2**70, ParameterError),
                                         ("1", ParameterTypeError), (True, ParameterTypeError),
                                         (1.0, ParameterTypeError)])
def test_python_seeds_are_read_as_on_the_command_line(seed, error):
    """simulate and converge share validate.seed with --seed: refused before any draw, in one line."""
    for call in (lambda: symrmt.simulate("tanh(x)", n=16, c=1.0, gamma=0.1, seeds=2, seed=seed, progress=False),
                 lambda: symrmt.converge("tanh(x)", 1.0, 0.1, ns=[16, 24, 32], seeds=2, seed=seed, progress=False)):
        with pytest.raises(error, match=r"^seed = .*0\.\.2\*\*63-1"):
            call()


def test_python_layers_and_heads_name_the_counts(tmp_path):
    _model(tmp_path)
    from symrmt.weights import analyze, read_weights

    path = tmp_path / "m.safetensors"
    with pytest.raises(ParameterError, match=r"^layer 1 is given twice"):
        read_weights(path, layers=[1, 1])
    with pytest.raises(ParameterError, match=r"^layer 9: the file has 6 layers \(0-5\)\.$"):
        read_weights(path, layers=[9])
    with pytest.raises(ParameterTypeError, match=r"^layer True: must be an integer"):
        read_weights(path, layers=[True])
    with pytest.raises(ParameterError, match=r"^head -1: the model has 2 heads \(0-1\)\.$"):
        analyze(path, layers=[0], heads=[-1], rank_max=2)
    with pytest.raises(ParameterError, match=r"^layer <an integer of 5000 digits>: the file has 6 layers"):
        read_weights(path, layers=[int(HUGE[:4000]) * 10**1000])


def test_shown_bounds_every_quoted_value():
    assert shown(10**5000) == "<an integer of 5001 digits>"
    assert len(shown("x" * 10**6)) <= 80 and "(1000000 characters)" in shown("x" * 10**6)
    assert len(shown(list(range(10**5)))) <= 100
