"""The documentation runs: the examples of docs/usage.md, and the pages' links stay inside the repository."""
import contextlib
import io
import pathlib
import re
import shlex

import pytest

from symrmt.cli import main

ROOT = pathlib.Path(__file__).parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def test_usage_python_examples_run_in_order(tmp_path, monkeypatch):
    """Every ```python block of usage.md, in one namespace (later blocks use earlier names)."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    blocks = _blocks((DOCS / "usage.md").read_text(), "python")
    assert len(blocks) >= 5
    for number, code in enumerate(blocks, 1):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"docs/usage.md, python block {number}", "exec"), namespace)


def _console_commands() -> list[str]:
    commands = []
    for block in _blocks((DOCS / "usage.md").read_text(), "console"):
        commands += [line[2:] for line in block.splitlines() if line.startswith("$ symrmt")]
    return commands


@pytest.mark.parametrize("command", _console_commands())
def test_usage_console_commands_exit_0(command, tmp_path, monkeypatch, capsys):
    """Each `$ symrmt ...` line runs through symrmt.cli.main with status 0 and prints something.

    The shown output is not compared character by character: it documents one run, and
    formatting may evolve; the numbers of the python blocks are asserted there instead.
    """
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(command)[1:]
    assert main(argv) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_pages_point_only_inside_the_repository(page):
    text = page.read_text()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):        # http(s) links
            continue
        assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_section_anchors_exist(page):
    """Links like theory.md#5-the-noise-pencil-dyson-equations name a real heading (GitHub slugs)."""
    for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", page.read_text()):
        heading_page = page.parent / target if target else page
        slugs = {_slug(h) for h in re.findall(r"^#+ (.+)$", heading_page.read_text(), flags=re.M)}
        assert anchor in slugs, f"{page.name}: no heading for #{anchor} in {heading_page.name}"


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


