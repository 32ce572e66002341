"""Sweep specs with parametric f: ``params`` gives each parameter its values, every point carries them."""
from __future__ import annotations

import csv

import numpy as np
import pytest

from _support.sweep import serial_backend
from symrmt.errors import SymrmtInputError
from symrmt.simulation import simulate_once
from symrmt.sweep import parse_spec, point_key, read_records, run_sweep, summarize, write_summary_csv
from symrmt.theory import attention_error

SPEC = {"f": ["tanh(s*x)", "erf(x)"], "params": {"s": [0.5, 2.0]}, "c": 1.0, "n": 16, "gamma": [0.1, 1.0],
        "seeds": 2}


def test_points_carry_the_parameter_values_and_equal_the_concrete_f(tmp_path):
    spec = parse_spec(SPEC)
    points = spec.points()
    assert len(points) == 2 * 3 and spec.as_dict()["params"] == {"s": [0.5, 2.0]}
    assert sorted(str(p.get("params")) for p in points if p["seed"] == 0) == ["None", "{'s': 0.5}", "{'s': 2.0}"]
    out = tmp_path / "run.jsonl"
    with serial_backend():
        run_sweep(spec, out, progress=False)
    _, records = read_records(out)
    at_two = [r for r in records if r.get("params") == {"s": 2.0}]
    assert len(at_two) == 2
    for record in at_two:          # the theory and the draw of tanh(2x), with the point's own key
        assert np.allclose(record["theory"]["attention"], attention_error("tanh(2*x)", 1.0, [0.1, 1.0]), rtol=1e-12)
        rng = np.random.default_rng(np.random.SeedSequence(int(record["key"], 16)))
        attention, _ = simulate_once("tanh(2*x)", 16, 1.0, [0.1, 1.0], None, 0.0, rng)
        assert record["mc"]["attention"] == attention.tolist() and record["key"] == point_key(record)
    info, rows = summarize(out)
    assert info["finished"] == 6 and {str(r["params"]) for r in rows} == {"{}", "{'s': 0.5}", "{'s': 2.0}"}
    with open(write_summary_csv(rows, tmp_path / "summary.csv")) as handle:
        cells = [row["params"] for row in csv.DictReader(handle)]
    assert set(cells) == {"{}", '{"s":0.5}', '{"s":2.0}'}


def test_a_spec_without_params_keeps_its_hash_and_points():
    plain = parse_spec({k: v for k, v in SPEC.items() if k != "params"} | {"f": ["erf(x)"]})
    assert "params" not in plain.as_dict() and all("params" not in p for p in plain.points())


@pytest.mark.parametrize("params, needle", [
    ({}, "['s'] of f have no values"),                       # f has a parameter the spec does not give
    ({"s": [1.0], "t": [2.0]}, "['t'], which no f has"),
    ({"s": [0.0, 1.0]}, "s = 0"),                            # tanh(0 x) = 0
    ({"s": "0:1:0"}, "params.s"), ({"s": []}, "params.s = []"), ({"s": ["a"]}, "params.s[0]"),
    ({"s": [1.0, 1.0]}, "twice"), ({"s": [float("nan")]}, "finite"), (["s"], "must be a table"),
    ({"s": list(range(200_000))}, "at most 100000"),
])
def test_bad_params_are_refused_naming_the_key(params, needle):
    with pytest.raises(SymrmtInputError) as caught:
        parse_spec(SPEC | {"params": params})
    assert needle in str(caught.value), str(caught.value)


def test_an_uncentered_parametric_f_is_refused_or_centered_per_point():
    with pytest.raises(SymrmtInputError, match="not centered at s = 0.5.*center = true"):
        parse_spec(SPEC | {"f": ["tanh(s*x) + s"]})
    spec = parse_spec(SPEC | {"f": ["tanh(s*x) + s"], "center": True})
    a1, nu, a0 = spec.hermite['["tanh(s*x) + s",{"s":2.0}]']
    assert a0 == pytest.approx(2.0, rel=1e-14) and nu == pytest.approx(0.635261, rel=1e-5)
