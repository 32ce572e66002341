"""symrmt.sweep.spec: every mistake in a spec is named before anything runs; normalizing is idempotent."""
from __future__ import annotations

import pytest

from _support.sweep import SPEC
from symrmt.cli import main
from symrmt.errors import SymrmtInputError
from symrmt.sweep import parse_spec, read_records


def test_the_spec_example_of_the_module_docstring_is_a_valid_spec():
    import textwrap

    import symrmt.sweep

    doc = symrmt.sweep.__doc__
    example = textwrap.dedent(doc[doc.index("::\n") + 3: doc.index("A ``geometry`` entry")])
    spec = parse_spec(symrmt.sweep.spec._toml().loads(example))   # tomllib, or tomli before Python 3.11
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
    ({"gamma": "1e-2:10"}, r"gamma = '1e-2:10': give a list of numbers or \"LO:HI:NUM\""),
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
