"""A spec names the models whose theory it computes: any registered model, through solve_model, in every worker."""
from __future__ import annotations

import ast
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import symrmt
from _support.sweep import TINY
from models.test_numeric_toy import toy_curve_model
from models.test_registry import scaled_ridge_model
from symrmt import models
from symrmt.errors import SymrmtInputError
from symrmt.sweep import parse_spec, read_records, run_sweep, summarize, write_summary_csv
from symrmt.sweep.spec import MONTE_CARLO

PACKAGE = pathlib.Path(symrmt.__file__).parent
TESTS = pathlib.Path(__file__).parents[1]

#: The hash of TINY before specs had ``models`` (computed on the commit before it): the default keeps it.
TINY_HASH = "b07f757c78e8cde9"


def test_the_default_models_keep_a_spec_and_its_hash():
    spec = parse_spec(TINY)
    assert spec.models == MONTE_CARLO and "models" not in spec.as_dict()
    assert spec.hash == parse_spec({**TINY, "models": list(MONTE_CARLO)}).hash == TINY_HASH
    other = parse_spec({**TINY, "models": "linear"})           # a single name is a list of one
    assert other.as_dict()["models"] == ["linear"] and other.hash != TINY_HASH
    assert parse_spec(other.as_dict()).hash == other.hash      # normalizing is idempotent


@pytest.mark.parametrize("value, needle", [
    (["nonesuch"], "models[0] = 'nonesuch': no model of this name is registered"),
    (["linear", "concatenated_heads"], "models[1] = 'concatenated_heads': the concatenated_heads model has no "
                                       "deterministic equivalent"),
    (["gram_density"], "the gram_density model takes no gamma"),
    (["summed_heads"], "the summed_heads model needs heads, which a sweep does not give"),
    (["attention_general"], "needs weights"),
    (["linear", "linear"], "models lists 'linear' twice"),
    ([3], "models[0]: a model's name must be a string"),
    ([], "models = []: give at least one value"),
])
def test_a_spec_refuses_a_model_it_cannot_solve_in_one_line(value, needle):
    with pytest.raises(SymrmtInputError) as caught:
        parse_spec({**TINY, "models": value})
    assert needle in str(caught.value) and "\n" not in str(caught.value)


#: A user's script: the toys registered at its top level (so that the spawned workers, which re-import it, register
#: them too), the sweep under the __main__ guard (symrmt.sweep, section Models).
SCRIPT = """\
import sys
from models.test_numeric_toy import toy_curve_model
from models.test_registry import scaled_ridge_model
from symrmt import models

models.register(scaled_ridge_model())
models.register(toy_curve_model())

if __name__ == "__main__":
    import json
    from symrmt.sweep import parse_spec, run_sweep

    report = run_sweep(parse_spec(json.loads(sys.argv[1])), sys.argv[2], workers=1, progress=False)
    print(json.dumps(report))
"""

TOY_SPEC = {"f": "tanh(x)", "c": [0.5, 2.0], "n": 16, "gamma": [0.01, 0.1, 1.0], "d": 1.5, "seeds": 1,
            "models": ["scaled_ridge", "toy_curve", "linear"]}


@pytest.fixture
def toys():
    registered = [models.register(scaled_ridge_model()), models.register(toy_curve_model())]
    yield registered
    for model in registered:
        models.unregister(model.name)


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    """TOY_SPEC run by a script on the local back end (one spawned worker): the result file."""
    folder = tmp_path_factory.mktemp("toys")
    script, out = folder / "my_sweep.py", folder / "results.jsonl"
    script.write_text(SCRIPT)
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE.parent), str(TESTS)])}
    done = subprocess.run([sys.executable, str(script), json.dumps(TOY_SPEC), str(out)], capture_output=True,
                          text=True, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["computed"] == 2
    return out


def test_the_toy_models_run_through_a_sweep_and_give_solve_models_curves(toys, toy_run):
    _, records = read_records(toy_run)
    assert sorted(r["c"] for r in records) == [0.5, 2.0]
    for record in records:
        theory, gamma = record["theory"], np.array(record["gamma"])
        assert list(theory) == ["a1", "nu", "scaled_ridge", "toy_curve", "linear", "error"]
        assert theory["error"] is None
        # the worker's curve is solve_model's, with the arguments each model takes (d for the derived toy; neither f
        # nor d for the numeric one): the same code on the same numbers, so equal to the last bit
        assert theory["scaled_ridge"] == symrmt.theory.solve_model("scaled_ridge", c=record["c"], gamma=gamma,
                                                                   d=record["d"]).error.tolist()
        assert theory["toy_curve"] == symrmt.theory.solve_model("toy_curve", c=record["c"], gamma=gamma).error.tolist()
        assert theory["linear"] == symrmt.linear_error(record["c"], gamma).tolist()
        # and not another model's curve: the derived toy is linear regression at gamma/d^2 (the scale law), not at gamma
        assert not np.allclose(theory["scaled_ridge"], theory["linear"], rtol=1e-3)
        assert np.allclose(theory["scaled_ridge"], symrmt.linear_error(record["c"], gamma / 1.5**2), rtol=1e-9, atol=0)


def test_the_summary_has_a_theory_column_per_model(toy_run, tmp_path):
    _, rows = summarize(toy_run)
    assert len(rows) == 6 and all(row["attention_theory"] is None for row in rows)     # attention not solved
    assert all(isinstance(row["attention_mean"], float) for row in rows)               # its Monte Carlo still is
    _, records = read_records(toy_run)
    first = next(r for r in records if r["c"] == rows[0]["c"])
    assert [row["toy_curve_theory"] for row in rows[:3]] == first["theory"]["toy_curve"]
    header = write_summary_csv(rows, tmp_path / "summary.csv").read_text().splitlines()[0].split(",")
    assert header[-2:] == ["scaled_ridge_theory", "toy_curve_theory"] and "linear_theory" in header


def test_a_record_without_a_curve_of_one_of_its_models_is_refused(toy_run, tmp_path):
    lines = toy_run.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    del record["theory"]["toy_curve"]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(lines[0] + (json.dumps(record, separators=(",", ":")) + "\n").encode())
    with pytest.raises(SymrmtInputError, match="line 2 has theory or Monte Carlo curves"):
        read_records(damaged)


def test_a_model_registered_only_in_the_parent_is_refused_by_the_worker_in_one_line(toys, tmp_path):
    spec = parse_spec({**TINY, "seeds": 1, "models": ["toy_curve"]})          # registered here: the spec is accepted
    with pytest.raises(SymrmtInputError) as caught:
        run_sweep(spec, tmp_path / "results.jsonl", workers=1, progress=False)
    message = str(caught.value)
    assert "the model 'toy_curve' is not registered in this sweep worker" in message and "\n" not in message
    assert "top level" in message


def _model_names_spelled(tree: ast.AST, names: set) -> list[int]:
    """Lines of a string literal that is a model's name (the sweep asks the spec and the registry for them)."""
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names})


def test_the_sweep_spells_no_model_name():
    names = set(models.names())
    found = {str(path.relative_to(PACKAGE)): lines for path in (PACKAGE / "sweep").rglob("*.py")
             if (lines := _model_names_spelled(ast.parse(path.read_text()), names))}
    assert found == {}
    planted = ast.parse('curves = {"attention": a, "linear": b}\n"""attention and linear, in words"""\n')
    assert _model_names_spelled(planted, names) == [1]
