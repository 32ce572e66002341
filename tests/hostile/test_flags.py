"""Hostile flags: values that start with '-', empty values, flags that would change nothing, very long inputs.

No flag is ever silently ignored (its combination is refused in one line), a value that looks like a negative
number is the value of the option before it, and every refusal is one line of bounded length, whatever the
length of the input it quotes.
"""
from __future__ import annotations

import pytest

import symrmt
from symrmt.cli import main
from symrmt.cli.output import MESSAGE_WIDTH, one_line
from symrmt.cli.parser import build_parser, joined_values
from symrmt.errors import SymrmtInputError

from .harness import MAX_LINE, Case, run_case

MC = ["--f", "tanh(x)", "--c", "1", "--gamma", "1", "--n", "16", "--seeds", "2", "--quiet"]
MB = 10**6


def _model(folder):
    pytest.importorskip("safetensors")
    import numpy as np
    from weights.files import bert_tensors, write

    write(folder / "m.safetensors", bert_tensors(np.random.default_rng(0), p=8, layers=2),
          {"num_attention_heads": 2, "hidden_size": 8})


CASES = [
    # values that start with '-': the option's value when they look like a number, a list or a grid
    Case("spectrum x -3:3:13", ["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "-3:3:13"], "", status=0),
    Case("theory cosine grid -0.5:0.5:3", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--mu-norm", "1",
                                          "--wk-norm", "1", "--wq-norm", "1", "--cos-mu-wk", "-0.5:0.5:3"], "",
         status=0),
    Case("theory c -1,2 is read", ["theory", "--f", "tanh(x)", "--c", "-1,2", "--gamma", "1"], "c = "),
    Case("theory gamma -1e-3 is read", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "-1e-3"],
         "--gamma '-1e-3': every gamma must be a finite number > 0"),
    Case("abbreviated option", ["theory", "--f", "tanh(x)", "--c", "1", "--gam", "-.5"], "--gamma '-.5'"),
    Case("theory mu-norm -1", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--mu-norm", "-1"],
         "mu_norm"),
    Case("diag -1e999", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--diag", "-1e999"],
         "must be finite"),
    Case("an option is not a value", ["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "--json"],
         "expected one argument"),
    # empty values: --plot '' would write nothing, without a word
    Case("converge plot empty", ["converge", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--plot", ""],
         "--plot '': is empty; give a file or folder name"),
    Case("compare plot empty", ["compare", *MC, "--plot", ""], "--plot '': is empty"),
    Case("simulate plot empty", ["simulate", *MC, "--plot", ""], "--plot '': is empty"),
    Case("weights plot empty", ["weights", "{tmp}/m.safetensors", "--plot", ""], "--plot '': is empty",
         setup=_model, kept=["m.safetensors"]),
    Case("theory csv blank", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--csv", " "],
         "--csv ' ': is empty"),
    Case("latex body empty", ["latex", "--body", ""], "--body '': is empty"),
    Case("weights file empty", ["weights", ""], "FILE '': is empty; give a file or folder name."),
    Case("latex label prefix empty", ["latex", "--f", "tanh(x)", "--body", "{tmp}/a.tex", "--label-prefix", ""],
         "--label-prefix '': is empty; give a value"),
    # latex: every combination that would change nothing
    Case("latex center without f", ["latex", "--center"], "--center without --f changes nothing"),
    Case("latex param without f", ["latex", "--param", "s=1"], "--param without --f changes nothing"),
    Case("latex numeric without f", ["latex", "--numeric"], "--numeric without --f changes nothing"),
    Case("latex digits without f", ["latex", "--digits", "8"], "--digits without --f changes nothing"),
    Case("latex all of f's options without f", ["latex", "--center", "--numeric", "--digits", "3"],
         "--center, --numeric, --digits without --f changes nothing: give --f, or leave them out"),
    Case("latex label prefix without output", ["latex", "--label-prefix", "foo"],
         "--label-prefix names the \\label's of --body and --document"),
    Case("latex f for a model without f", ["latex", "--kind", "linear", "--f", "tanh(x)"],
         "the linear model does not depend on f: leave out --f."),
    Case("latex f options for a model without f", ["latex", "--kind", "linear", "--f", "tanh(x)", "--numeric",
                                                   "--digits", "3"], "leave out --f and --numeric, --digits"),
    Case("latex digits for exact data", ["latex", "--f", "erf(x)", "--digits", "3"],
         "f's data are exact, so no number is printed to round"),
    Case("latex rank 1 for a model without rank", ["latex", "--kind", "linear", "--rank", "1"],
         "--rank 1: the linear model takes no rank of weights"),
    Case("latex rank for a density", ["latex", "--kind", "gram_density", "--rank", "2"], "takes no rank"),
    Case("latex body and document", ["latex", "--body", "{tmp}/a.tex", "--document", "{tmp}/b.tex"],
         "--document and --body: give one"),
    # one line of bounded length, whatever the input
    Case("gram of a megabyte", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--gram",
                                "[[" + "1," * (MB // 2) + "1]]"], "gram"),
    Case("gamma list of a megabyte", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1," * (MB // 2) + "x"],
         "characters)"),
    Case("f of a megabyte", ["theory", "--f", "x+" * (MB // 2) + "x", "--c", "1", "--gamma", "1"], "characters"),
    Case("param name of a megabyte", ["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "1",
                                      "--param", "s" * MB + "=1"], "--param"),
    Case("unknown option of a megabyte", ["theory", "--f", "x", "--c", "1", "--gamma", "1", "--" + "x" * MB],
         "unrecognized arguments"),
    Case("csv path of a megabyte", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1",
                                    "--csv", "{tmp}/" + "a" * MB + ".csv"], "--csv"),
    Case("weights-scale of a megabyte", ["theory", "--weights", "{tmp}/m.safetensors", "--layer", "0", "--f",
                                         "tanh(x)", "--c", "1", "--gamma", "1", "--weights-scale", "z" * MB],
         "--weights-scale", setup=_model),
    Case("rank of 4000 digits", ["latex", "--rank", "9" * 4000], "--rank"),
    Case("n of 4000 digits", ["simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--n", "9" * 4000], "n = "),
]


#: Cases over ~5 s (the density's first solve at 13 points): still run by CI.
SLOW = {"spectrum x -3:3:13"}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c.name in SLOW else c for c in CASES],
                         ids=str)
def test_flags(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)


def test_negative_values_are_joined_only_to_options_that_take_one_value():
    parser = build_parser()
    assert joined_values(parser, ["theory", "--c", "-1,2", "--gamma", "-1e-3"]) == \
        ["theory", "--c=-1,2", "--gamma=-1e-3"]
    # a flag takes no value, an option is not a value, and nothing after '--' is touched
    assert joined_values(parser, ["theory", "--json", "-1"]) == ["theory", "--json", "-1"]
    assert joined_values(parser, ["spectrum", "--x", "--json"]) == ["spectrum", "--x", "--json"]
    assert joined_values(parser, ["theory", "--", "--c", "-1"]) == ["theory", "--", "--c", "-1"]
    assert joined_values(parser, ["theory", "--f", "-tanh(x)"]) == ["theory", "--f", "-tanh(x)"]


def test_the_line_guard_bounds_a_message_of_a_megabyte(monkeypatch, capsys):
    """The last guard (output.one_line): a planted command whose refusal quotes a megabyte unshortened still
    prints one line of at most MAX_LINE characters, with the start and the end of the message."""
    def planted(args):
        raise SymrmtInputError("start " + "y" * MB + " end.")
    monkeypatch.setitem(symrmt.cli.COMMANDS, "hermite", planted)
    assert main(["hermite", "--f", "tanh(x)"]) == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and len(line) <= MAX_LINE and "start" in line
    assert line.endswith("end. (1000011 characters)")
    assert len(one_line(ValueError("z" * MB))) <= MESSAGE_WIDTH


@pytest.mark.parametrize("kwargs, needle", [
    ({"label_prefix": "x"}, "label_prefix names"),
    ({"kind": "linear", "f": "tanh(x)"}, "the linear model does not depend on f"),
    ({"numeric": True}, "numeric without f changes nothing"),
    ({"center": True}, "center without f changes nothing"),
    ({"digits": 3}, "digits without f changes nothing"),
    ({"f": "x**3 - 3*x", "digits": 3}, "f's data are exact"),
])
def test_python_latex_refuses_arguments_without_effect(kwargs, needle):
    with pytest.raises(SymrmtInputError, match=needle):
        symrmt.latex(**kwargs)
