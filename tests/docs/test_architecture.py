"""docs/architecture.md stays true to the code: every module, function and path it names exists, and its list of
modules is the package's (``python tests/docs/test_architecture.py`` writes that list anew)."""
import ast
import importlib
import pathlib
import re

import pytest

from symrmt.cli import main

ROOT = pathlib.Path(__file__).parents[2]
PAGE = ROOT / "docs" / "architecture.md"
TEXT = PAGE.read_text()
DOTTED = sorted(set(re.findall(r"`(symrmt(?:\.\w+)+)`", TEXT)))
PATHS = sorted(set(p for p in re.findall(r"`((?:symrmt|tests|docs|benchmarks)/[\w/.<>-]*)`", TEXT) if "<" not in p))


def resolve(dotted: str):
    """The object a dotted name stands for: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise ModuleNotFoundError(dotted)


def test_the_page_names_enough_to_check():
    assert len(DOTTED) >= 60 and len(PATHS) >= 10


@pytest.mark.parametrize("dotted", DOTTED)
def test_every_named_module_and_function_exists(dotted):
    resolve(dotted)


@pytest.mark.parametrize("path", PATHS)
def test_every_named_path_exists(path):
    assert (ROOT / path).exists(), f"docs/architecture.md names {path}, which does not exist"


@pytest.mark.parametrize("name", ["symrmt.derive.kernel_ridge.no_such_function", "symrmt.no_such_module"])
def test_a_wrong_name_is_caught(name):
    with pytest.raises((AttributeError, ModuleNotFoundError)):
        resolve(name)


def test_the_second_model_prints_as_the_page_says(capsys):
    """`symrmt latex --kind kernel_ridge` prints the two-block Dyson matrix and E_kernel, at any rank."""
    assert main(["latex", "--kind", "kernel_ridge"]) == 0
    text = capsys.readouterr().out
    assert r"E_\mathrm{kernel}(\gamma)" in text and r"- b^{2} t_{11} - 1" in text and r"c \lambda" not in text
    assert main(["latex", "--kind", "kernel_ridge", "--rank", "2", "--f", "tanh(x)", "--json"]) == 0
    assert '"rank": 2' in capsys.readouterr().out


MODULES_HEADING = "## Every module"


def module_table() -> str:
    """The table of every module of the package with the first line of its docstring."""
    rows = ["| module | what it holds |", "| --- | --- |"]
    for path in sorted((ROOT / "symrmt").rglob("*.py")):
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        first = doc.strip().split("\n")[0].replace("|", "\\|")
        rows.append(f"| `{path.relative_to(ROOT).as_posix()}` | {first} |")
    return "\n".join(rows) + "\n"


def _listed(text: str) -> str:
    section = text[text.index(MODULES_HEADING):]
    return section[section.index("| module |"):]


def test_the_page_lists_every_module_of_the_package():
    assert _listed(TEXT) == module_table(), "run python tests/docs/test_architecture.py"


def test_the_module_list_check_catches_a_module_left_out():
    table = module_table()
    first_row = table.splitlines()[2]
    assert _listed(TEXT.replace(first_row + "\n", "")) != table


if __name__ == "__main__":
    head = TEXT[:TEXT.index(MODULES_HEADING)]
    section = TEXT[TEXT.index(MODULES_HEADING):]
    intro = section[:section.index("| module |")] if "| module |" in section else section.replace("MODULE_TABLE\n", "")
    PAGE.write_text(head + intro + module_table())
