"""docs/verify.md runs: its catalogue table is the code's, its Python blocks and its pytest file run, its commands exit 0.

The power table of the same page is checked by tests/validation/test_property_mutations.py.
"""
import contextlib
import io
import pathlib
import re
import shlex

import pytest

from symrmt.cli import main
from symrmt.testing.checks import catalogue_markdown

PAGE = pathlib.Path(__file__).parents[2] / "docs" / "verify.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)


def test_catalogue_table_is_generated_from_the_code():
    text = PAGE.read_text()
    block = text.split("checked by tests/docs/test_docs_verify.py -->\n")[1].split("<!-- end of catalogue -->")[0]
    assert block.strip() == catalogue_markdown()


def test_python_examples_run_in_order(tmp_path, monkeypatch):
    """The blocks that are not the test file, in one namespace; their asserts hold the numbers the page states."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = [code for code in _blocks("python") if "def test_" not in code]
    assert len(blocks) >= 2
    for number, code in enumerate(blocks, 1):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"docs/verify.md, python block {number}", "exec"), namespace)


def test_the_pytest_file_a_user_copies_passes():
    """The ```python block with tests is a pytest module: each of its test functions runs and passes."""
    (code,) = [code for code in _blocks("python") if "def test_" in code]
    namespace: dict = {"__name__": "test_my_attention"}
    exec(compile(code, "docs/verify.md, test_my_attention.py", "exec"), namespace)
    tests = [fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)]
    assert len(tests) == 3
    for test in tests:
        test()


def _console_commands() -> list[str]:
    return [line[2:] for block in _blocks("console") for line in block.splitlines() if line.startswith("$ symrmt")]


@pytest.mark.parametrize("command", _console_commands())
def test_console_commands_exit_0(command, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(command)[1:]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.strip()
