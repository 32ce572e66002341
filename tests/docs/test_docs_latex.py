"""docs/theory.md shows the systems exactly as ``symrmt latex`` prints them.

Each block between ``<!-- symrmt latex ARGS -->`` and ``<!-- end -->`` must equal the output of
``symrmt latex ARGS``, one ``math`` fence per ``aligned`` block. Regenerate the page with
``python tests/docs/test_docs_latex.py``.
"""
from __future__ import annotations

import contextlib
import io
import pathlib
import re
import shlex

PAGE = pathlib.Path(__file__).parents[2] / "docs" / "theory.md"
MARKED = re.compile(r"(<!-- symrmt latex(?P<args>[^>]*)-->\n)(?P<body>.*?)(\n<!-- end -->)", re.S)


def generated(args: str) -> str:
    from symrmt.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["latex", *shlex.split(args)]) == 0
    blocks = buffer.getvalue().strip().split("\n\n")
    return "\n\n".join(f"```math\n{block}\n```" for block in blocks)


def test_theory_page_shows_the_generated_systems():
    text = PAGE.read_text()
    marked = list(MARKED.finditer(text))
    assert len(marked) >= 3
    for match in marked:
        assert match["body"] == generated(match["args"]), (
            f"docs/theory.md block 'symrmt latex{match['args']}' differs from the generator; "
            "run python tests/docs/test_docs_latex.py")


if __name__ == "__main__":
    PAGE.write_text(MARKED.sub(lambda m: m.group(1) + generated(m["args"]) + m.group(4), PAGE.read_text()))
