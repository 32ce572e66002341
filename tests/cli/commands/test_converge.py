"""``symrmt converge``: the JSON contract, the table, the plot, and refusals before any computing."""
from __future__ import annotations

import math

from ..runner import assert_refused, run, run_json

SMALL = ("converge", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1", "--ns", "32,64,128", "--seeds", "2", "--quiet")


def test_converge_json_contract(capsys):
    out = run_json(capsys, *SMALL, "--mu-norm", "1")
    assert list(out) == ["gamma", "ns", "seeds", "seed_seconds", "seconds", "target", "attention", "linear", "gap"]
    assert out["ns"] == [32, 64, 128] and out["target"] == 0.03 and out["seeds"][-1] == 2
    assert out["seeds"] == sorted(out["seeds"], reverse=True) and all(t > 0 for t in out["seed_seconds"])
    for name in ("attention", "linear", "gap"):
        block = out[name]
        assert list(block) == ["mean", "se", "limit", "limit_lo", "limit_hi", "half_width", "exponent", "theory",
                               "agrees", "decisions"]
        assert [d["decision"] for d in block["decisions"]] != [] and all(
            d["decision"] in ("agrees", "disagrees", "undecided") for d in block["decisions"])
        assert len(block["mean"]) == 3 and all(len(row) == 2 for row in block["mean"] + block["se"])
        assert all(len(block[key]) == 2 for key in ("limit", "limit_lo", "limit_hi", "exponent", "theory", "agrees"))
        assert all(isinstance(v, float) and math.isfinite(v) for v in block["limit"] + block["theory"])
        assert all(lo <= hi for lo, hi in zip(block["limit_lo"], block["limit_hi"]))


def test_converge_table_and_plot(capsys, tmp_path):
    plot = tmp_path / "ladder.png"
    status, out, err = run(capsys, *SMALL, "--gram", "[[1,0,0],[0,0,0],[0,0,0]]", "--plot", str(plot))
    assert status == 0, err
    assert "n (seeds): 32 (" in out and "128 (2)" in out and "95% interval" in out and "gap" in out
    assert "measured seconds per seed" in out and "decision" in out
    assert plot.stat().st_size > 10_000


def test_one_seed_count_per_size_repeats_a_run_exactly(capsys):
    """--seeds S1,S2,... (an earlier run's JSON 'seeds') gives the same numbers; an integer lets the cost decide."""
    first = run_json(capsys, *SMALL[:-3], "--seeds", "6,4,2", "--quiet")
    again = run_json(capsys, *SMALL[:-3], "--seeds", "6,4,2", "--quiet")
    assert first["seeds"] == [6, 4, 2] and first["attention"]["mean"] == again["attention"]["mean"]
    assert_refused(capsys, [*SMALL[:-3], "--seeds", "6,4", "--quiet"], "seeds")


def test_converge_centers_f(capsys):
    out = run_json(capsys, *SMALL, "--f", "relu(x)", "--center")
    assert out["attention"]["theory"][0] > 0


def test_converge_refuses_before_computing(capsys, tmp_path):
    assert_refused(capsys, [*SMALL, "--plot", str(tmp_path / "ladder.txt")], "extension")
    assert_refused(capsys, [*SMALL, "--plot", str(tmp_path / "missing" / "ladder.png")], "does not exist")
    assert_refused(capsys, [*SMALL[:-5], "--ns", "64,128", "--quiet"], "at least three")
    assert_refused(capsys, [*SMALL[:-5], "--ns", "64,x,128", "--quiet"], "integer")
    assert_refused(capsys, [*SMALL[:-5], "--ns", "64,,128", "--quiet"], "empty item")
    assert_refused(capsys, [*SMALL[:-3], "--seeds", "1", "--quiet"], "seeds")
    assert_refused(capsys, [*SMALL, "--c", "-1"], "c = p/n")
    assert_refused(capsys, [*SMALL, "--f", "relu(x)"], "center")
    assert_refused(capsys, [*SMALL, "--target", "3"], "--target 3")
    assert_refused(capsys, [*SMALL, "--target", "0"], "(0, 1)")


def test_converge_softmax(capsys):
    """--attention softmax: the ladder of softmax simulations against softmax_error; --f is refused with it."""
    from symrmt.theory.softmax import softmax_error

    argv = ("converge", "--attention", "softmax", "--temperature", "2", "--c", "1", "--gamma", "0.1,1",
            "--ns", "32,64,128", "--seeds", "2", "--quiet")
    out = run_json(capsys, *argv)
    assert out["attention"]["theory"] == softmax_error(1.0, [0.1, 1.0], temperature=2.0).tolist()
    assert_refused(capsys, [*argv, "--f", "tanh(x)"], "leave out --f")


def test_converge_softmax_over_the_queries(capsys):
    """--normalize reaches the simulator (the label says so); the theory is the same for both orientations."""
    argv = ("converge", "--attention", "softmax", "--normalize", "queries", "--c", "1", "--gamma", "1",
            "--ns", "32,64,128", "--seeds", "2", "--quiet")
    status, out, err = run(capsys, *argv)
    assert status == 0, err
    assert "over the queries" in out
