"""symrmt.sweep.spec: every mistake in a spec is named before anything runs, sizes and nesting first;
normalizing is idempotent."""
from __future__ import annotations

import json
import tracemalloc

import pytest

from _support.sweep import SPEC
from symrmt.cli import main
from symrmt.errors import ParameterError, SymrmtInputError
from symrmt.sweep import load_spec, parse_spec, read_records
from symrmt.validate import MAX_GRID_POINTS


def test_the_spec_example_of_the_module_docstring_is_a_valid_spec():
    import textwrap

    import symrmt.sweep

    doc = symrmt.sweep.__doc__
    example = textwrap.dedent(doc[doc.index("::\n") + 3: doc.index("A ``geometry`` entry")])
    spec = parse_spec(symrmt.sweep.spec.tomllib.loads(example))   # tomllib, or tomli before Python 3.11
    assert len(spec.points()) == 2 * 3 * 2 * 8 and spec.geometry[0]["cos_wk_wq"] == 1.0


def test_the_header_holds_a_spec_that_parses_to_the_same_spec(local_run):
    spec, _, out, _ = local_run
    header, _ = read_records(out)
    assert parse_spec(header["spec"]).hash == header["spec_hash"] == spec.hash   # normalizing is idempotent


@pytest.mark.parametrize("change, message", [
    ({"seeds": None}, r"missing key\(s\) \['seeds'\]"),
    ({"sedes": 2}, r"unknown key\(s\) \['sedes'\]"),
    ({"c": [1.0, -1.0]}, r"c\[1\] = -1.0: must be > 0"),
    ({"c": [1.0, 1]}, r"c lists 1.0 twice"),
    ({"n": [24.5]}, r"n\[0\] = 24.5: must be an integer >= 2"),
    ({"n": [2], "c": [0.5]}, r"p = round\(c\*n\) = 1 < 3"),
    ({"gamma": [0.1, 0.0]}, r"gamma\[1\] = 0.0: every ridge must be finite and > 0"),
    ({"gamma": "1e-2:10"}, r"gamma = '1e-2:10': give a list of numbers or \"LO:HI:NUMlog\""),
    ({"seeds": 0}, r"seeds = 0: must be a count"),
    ({"center": "yes"}, r"center = 'yes': must be true or false"),
    ({"method": "fast"}, r"method = 'fast': (use one of .*exact|this version of symrmt.simulation has a single)"),
    ({"f": ["tanh(x)", "os.system('ls')"]}, r"f\[1\] = \"os.system\('ls'\)\""),
    ({"f": ["relu(x)"]}, r"f\[0\] = 'relu\(x\)'.*center = true"),
    ({"geometry": [{"mu": 1.0}]}, r"geometry\[0\] has unknown key\(s\) \['mu'\]"),
    ({"geometry": [{"cos_mu_wk": 2.0}]}, r"geometry\[0\]: cos_mu_wk = 2.0"),
    ({"geometry": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}, r"geometry\[0\] = \[1.0, 0.0, 0.0\].*\[\[\["),
    ({"geometry": [[[1.0, 0.0], [0.0, 1.0]]]}, r"geometry\[0\]: a 2-row matrix"),
    ({"geometry": [[[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]}, r"geometry\[0\] is not positive semi-definite"),
    ({"geometry": [[[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]]}, r"geometry\[0\] is not symmetric"),
])
def test_a_bad_spec_is_refused_naming_the_key_the_value_and_the_fix(change, message):
    raw = {k: v for k, v in (SPEC | change).items() if v is not None}
    with pytest.raises(SymrmtInputError, match=message):
        parse_spec(raw)


def test_cli_reports_a_bad_spec_file_with_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("f = [tanh(x)]\n")
    assert main(["sweep", str(bad), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "is not valid TOML" in capsys.readouterr().err
    assert main(["sweep", "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "give SPEC and --out" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Sizes and nesting: refused before anything is built
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    ({"gamma": "1e-2:10:1000000000"}, rf"gamma = '1e-2:10:1000000000': NUM = 1000000000 must be in 1..{MAX_GRID_POINTS}"),
    ({"gamma": "1e-2:10:0"}, rf"NUM = 0 must be in 1..{MAX_GRID_POINTS}"),
    ({"gamma": "-1:10:5"}, r"LO and HI must be finite numbers > 0"),
    ({"gamma": [0.1] * (MAX_GRID_POINTS + 1)}, rf"gamma lists {MAX_GRID_POINTS + 1} values; at most {MAX_GRID_POINTS}"),
    ({"c": [1.0] * (MAX_GRID_POINTS + 1)}, rf"c lists {MAX_GRID_POINTS + 1} values"),
    ({"seeds": 10**8}, rf"seeds = 100000000: must be a count, an integer in 1..{MAX_GRID_POINTS}"),
    ({"seeds": 1000, "c": [0.5 + i for i in range(30)]}, rf"the spec has 120000 points \(1000 seeds x 1 f x 30 c x "
                                                         rf"2 n x 1 d x 2 geometry\); at most {MAX_GRID_POINTS}"),
])
def test_a_spec_beyond_the_size_bounds_is_refused_before_anything_is_built(change, message):
    tracemalloc.start()
    try:
        with pytest.raises(ParameterError, match=message):
            parse_spec(SPEC | change)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # 10^9 gammas or the points of 10^8 seeds would take gigabytes (they ended in MemoryError); a copy of the
    # longest list above takes 0.8 MB.
    assert peak < 16 * 2**20


def test_the_size_bound_is_the_one_of_the_command_line_grids():
    from symrmt import validate

    assert validate.MAX_GRID_POINTS == 100_000
    assert parse_spec(SPEC | {"gamma": f"1e-2:10:{MAX_GRID_POINTS}log"}).gamma[-1] == pytest.approx(10.0)


def _nested(depth: int) -> list:
    outer = inner = []
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


@pytest.mark.parametrize("key", ["f", "c", "n", "gamma", "d", "geometry", "seeds", "center", "method"])
def test_a_deeply_nested_value_is_named_in_one_short_line(key):
    with pytest.raises(ParameterError) as info:
        parse_spec(SPEC | {key: [_nested(100_000)]})
    assert key in str(info.value) and len(str(info.value)) < 400 and "\n" not in str(info.value)


@pytest.mark.parametrize("name, text", [("deep.json", '{"f": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                                        ("deep.toml", "f = " + "[" * 100_000 + "]" * 100_000)])
def test_a_deeply_nested_spec_file_is_one_line_and_exit_2(tmp_path, capsys, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err and err.count("\n") == 1 and not (tmp_path / "o.jsonl").exists()


def test_a_spec_file_that_is_too_large_or_a_folder_is_refused_unread(tmp_path, monkeypatch):
    import symrmt.sweep.spec

    monkeypatch.setattr(symrmt.sweep.spec, "MAX_SPEC_BYTES", 100)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(SPEC))
    with pytest.raises(SymrmtInputError, match="big.json' is over"):
        load_spec(big)
    with pytest.raises(SymrmtInputError, match=r"cannot read it \(Is a directory\)"):
        load_spec(tmp_path)


def test_a_spec_grid_takes_the_grammar_of_the_command_line():
    """gamma "LO:HI:NUMlog" is log-spaced, params "LO:HI:NUM" evenly spaced; a plain gamma grid keeps its old log
    spacing for one release, with a GridSpacingWarning that names the log spelling."""
    from symrmt.validate import GridSpacingWarning

    assert parse_spec(SPEC | {"gamma": "0.01:1:3log"}).gamma == pytest.approx([0.01, 0.1, 1.0], rel=1e-12)
    with pytest.warns(GridSpacingWarning, match="write 0.01:1:3log"):
        assert parse_spec(SPEC | {"gamma": "0.01:1:3"}).gamma == pytest.approx([0.01, 0.1, 1.0], rel=1e-12)
