"""The API reference and usage.md keep up with the package: every public name has a page, every command a section.

Public names are ``symrmt.__all__`` and the ``__all__`` of every subpackage that declares one (the others,
``symrmt.analysis``, ``symrmt.presentation`` and ``symrmt.runtime``, are internal layers). Each public
package has a page ``docs/api/NAME.rst`` whose autosummary lists its names; each command of the parser is
named in docs/usage.md as ``symrmt COMMAND``. The checks are shown to catch a planted missing name and a
planted missing command. Building the site itself is tests/docs/test_site.py (slow, needs the docs extra).
"""
from __future__ import annotations

import importlib
import pathlib
import pkgutil
import re

import pytest

import symrmt
from symrmt.cli.parser import build_parser

ROOT = pathlib.Path(__file__).parents[2]
API = ROOT / "docs" / "api"


def public_packages() -> list[str]:
    """``symrmt`` and each subpackage of it that declares ``__all__``."""
    names = ["symrmt"]
    for info in pkgutil.iter_modules(symrmt.__path__):
        if info.ispkg and hasattr(importlib.import_module(f"symrmt.{info.name}"), "__all__"):
            names.append(f"symrmt.{info.name}")
    return names


def page_of(package: str) -> pathlib.Path:
    return API / f"{package.rpartition('.')[2] or package}.rst"


def listed_names(text: str) -> set[str]:
    """The entries of the ``autosummary`` directives of a page."""
    names: set[str] = set()
    for block in re.findall(r"^\.\. autosummary::\n((?:[ \t]+.*\n|\n)*)", text, flags=re.M):
        names |= {line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith(":")}
    return names


def missing_names(package: str, text: str) -> list[str]:
    """The public names of ``package`` that the page ``text`` does not list, in ``__all__`` order."""
    listed = listed_names(text)
    return [name for name in importlib.import_module(package).__all__ if name not in listed]


def commands() -> list[str]:
    """The commands of ``symrmt``, from the parser."""
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return list(sub.choices)


def missing_commands(usage: str) -> list[str]:
    return [name for name in commands() if not re.search(rf"\bsymrmt {re.escape(name)}\b", usage)]


@pytest.mark.parametrize("package", public_packages())
def test_every_public_name_is_in_the_api_reference(package):
    page = page_of(package)
    assert page.exists(), f"{package} is public (it has __all__) but docs/api/{page.name} does not exist"
    assert f".. automodule:: {package}\n" in page.read_text()
    assert missing_names(package, page.read_text()) == []


def test_the_api_index_lists_every_page():
    index = (API / "index.rst").read_text()
    assert {page_of(p).stem for p in public_packages()} <= set(re.findall(r"^   (\w+)$", index, flags=re.M))


def test_a_planted_missing_name_is_caught():
    text = page_of("symrmt.theory").read_text()
    planted = text.replace("\n   summed_heads_error\n", "\n")
    assert planted != text
    assert missing_names("symrmt.theory", planted) == ["summed_heads_error"]


def test_every_command_is_in_usage():
    assert missing_commands((ROOT / "docs" / "usage.md").read_text()) == []


def test_a_planted_missing_command_is_caught():
    usage = (ROOT / "docs" / "usage.md").read_text()
    planted = re.sub(r"symrmt heads\b", "symrmt theory", usage)
    assert missing_commands(planted) == ["heads"]
    assert "heads" in commands() and len(commands()) >= 13
