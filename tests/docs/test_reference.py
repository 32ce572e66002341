"""The API reference and usage.md keep up with the package: every public name has a page, every command a section.

Public names are ``symrmt.__all__`` and the ``__all__`` of every subpackage that declares one (the others,
``symrmt.analysis``, ``symrmt.presentation`` and ``symrmt.runtime``, are internal layers). Each public
package has a page ``docs/api/NAME.rst`` whose autosummary lists its names; each command of the parser is
named in docs/usage.md as ``symrmt COMMAND``. The checks are shown to catch a planted missing name and a
planted missing command. Building the site itself is tests/docs/test_site.py (slow, needs the docs extra).
"""
from __future__ import annotations

import importlib
import inspect
import pathlib
import pkgutil
import re

import numpy as np
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


#: Public functions and classes whose docstring has no example yet, by the module that defines them. The list
#: only shrinks: a new public name without an example fails, and so does a name here that has gained one. It is
#: empty: every public function and class has an example that the default suite runs, each in a second or two
#: at a tiny size (a ladder of n = 32..128, a figure at n = 32, a two-point sweep on one worker).
WITHOUT_EXAMPLE: set[str] = set()


def public_objects() -> dict[str, object]:
    """Each public function and class once, by the module and name that define it."""
    found = {}
    for package in public_packages():
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) or inspect.isfunction(inspect.unwrap(value)):   # lru_cache'd functions too
                found[f"{value.__module__}.{value.__name__}"] = value
    return found


def names_without_example(objects: dict[str, object]) -> set[str]:
    """The objects whose docstring holds no doctest (``>>>``), which pytest --doctest-modules runs."""
    return {name for name, value in objects.items() if ">>>" not in (inspect.getdoc(value) or "")}


def test_every_public_function_and_class_has_an_example():
    objects = public_objects()
    missing = names_without_example(objects)
    assert sorted(missing - WITHOUT_EXAMPLE) == [], "give these an Examples section with a doctest"
    assert sorted(WITHOUT_EXAMPLE - missing) == [], "these have an example now: take them out of WITHOUT_EXAMPLE"
    assert len(objects) - len(missing) >= 60


def test_a_planted_public_function_without_an_example_is_caught():
    def planted(x: float) -> float:
        """A public function with no example."""
        return x

    objects = {**public_objects(), "symrmt.planted": planted}
    assert names_without_example(objects) - WITHOUT_EXAMPLE == {"symrmt.planted"}


#: How the pages write the number of WITHOUT_EXAMPLE.
COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
               10: "ten"}


def example_claim_problems(text: str, without: set[str]) -> list[str]:
    """What a page ``text`` gets wrong about the names without an example: it must say "all but N" (N in words)
    while there are some, and, with none left, "for every public function and class" and no "all but N"."""
    text = " ".join(text.split())
    said = f"all but {COUNT_WORDS[len(without)]}" if without else "for every public function and class"
    problems = [] if said in text else [f"does not say {said!r}"]
    claimed = re.findall(rf"all but (?:{'|'.join(COUNT_WORDS.values())})\b", text)
    return problems + ([f"says {c!r}" for c in claimed] if not without else [])


def test_the_pages_say_how_many_names_have_no_example():
    """README, docs/usage.md and docs/api/index.rst state the count of WITHOUT_EXAMPLE in words, or that there
    is none."""
    for page in (ROOT / "README.md", ROOT / "docs" / "usage.md", API / "index.rst"):
        assert example_claim_problems(page.read_text(), WITHOUT_EXAMPLE) == [], page.name


def test_a_planted_claim_of_exceptions_is_caught():
    text = (API / "index.rst").read_text()
    assert example_claim_problems(text + "\nall but eight\n", set()) == ["says 'all but eight'"]
    assert example_claim_problems(text, {"symrmt.planted"}) == ["does not say 'all but one'"]


#: The numpydoc sections every public function's docstring has: its page shows them. Parameters only where
#: the function takes any; Raises even where the answer is "nothing of its own" (say so).
SECTIONS = ("Parameters", "Returns", "Raises", "See Also")


def missing_sections(objects: dict[str, object]) -> dict[str, list[str]]:
    """``name -> [section, ...]``: the sections of :data:`SECTIONS` that each public function's docstring lacks."""
    from numpydoc.docscrape import FunctionDoc

    missing = {}
    for name, value in objects.items():
        if not inspect.isfunction(inspect.unwrap(value)):
            continue
        doc = FunctionDoc(value)
        wanted = [s for s in SECTIONS if s != "Parameters" or inspect.signature(value).parameters]
        lacking = [s for s in wanted if not doc[s]]
        if lacking:
            missing[name] = lacking
    return missing


#: Public functions whose docstring still lacks some of :data:`SECTIONS`: none since 2026-12-08. The set stays so
#: that a name can be held here with a reason; a new public function without the sections fails.
WITHOUT_SECTIONS: set[str] = set()


def test_every_public_function_has_parameters_returns_raises_and_see_also():
    missing = missing_sections(public_objects())
    assert sorted(set(missing) - WITHOUT_SECTIONS) == [], "give these the numpydoc sections " + ", ".join(SECTIONS)
    assert sorted(WITHOUT_SECTIONS - set(missing)) == [], "these have every section now: take them out of the list"


def test_a_planted_function_without_sections_is_caught():
    def planted(x: float) -> float:
        """A public function with an example and nothing else.

        Examples
        --------
        >>> planted(1.0)
        1.0
        """
        return x

    missing = missing_sections({**public_objects(), "symrmt.planted": planted})
    assert missing["symrmt.planted"] == ["Parameters", "Returns", "Raises", "See Also"]
    assert set(missing) - WITHOUT_SECTIONS == {"symrmt.planted"}


def test_the_main_functions_state_their_ranges_as_numbers():
    """attention_error's page gives the ranges of c, gamma and d as the numbers the validator uses, not the names
    of the constants (C_RANGE, MAX_GAMMA), and it has every section."""
    from symrmt import attention_error
    from symrmt.validate import C_RANGE, MAX_DIAGONAL, MAX_GAMMA

    doc = inspect.getdoc(attention_error)
    low, high = (f"10^{{{int(round(np.log10(v)))}}}" for v in C_RANGE)
    assert f"{low} \\le c \\le {high}" in doc
    assert f"0 < \\gamma \\le 10^{{{int(round(np.log10(MAX_GAMMA)))}}}" in doc
    assert f"|d| \\le {MAX_DIAGONAL:g}" in doc
    assert "C_RANGE" not in doc and "MAX_GAMMA" not in doc and "as in :func:" not in doc
    assert "symrmt.theory.ridge.attention_error" not in missing_sections(public_objects())
