"""Hostile inputs of ``symrmt latex --weights``: refused in one line, no file written or damaged."""
import pytest

from tests.hostile.harness import Case, run_case


def _existing(folder):
    (folder / "eqs.tex").write_text("% mine\n")


CASES = [
    Case("weights-with-rank", ["latex", "--weights", "--rank", "3"], "--weights cannot be combined with --rank"),
    Case("weights-with-form", ["latex", "--weights", "--form", "algebraic"], "--weights cannot be combined with --form"),
    Case("weights-body-and-document", ["latex", "--weights", "--body", "{tmp}/a.tex", "--document", "{tmp}/b.tex"],
         "give one"),
    Case("weights-body-not-tex", ["latex", "--weights", "--body", "{tmp}/eqs.txt"], ".tex"),
    Case("weights-bad-prefix", ["latex", "--weights", "--body", "{tmp}/eqs.tex", "--label-prefix", "1x"], "label",
         setup=_existing, kept=("eqs.tex",)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_refused(case, tmp_path, capsys):
    run_case(case, tmp_path, capsys)
