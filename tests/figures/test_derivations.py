"""derivations/: one gallery script per registered figure, each a short example through the public API.

The site's gallery (sphinx-gallery, docs/conf.py) runs every figure script of derivations/ and shows its figure;
the full publication figure of the same name is ``symrmt figure NAME``, which each script's docstring names.
A gallery script is a real example, not a stub: it imports ``symrmt``, calls its public API and draws with
matplotlib in five to twenty-five statements' lines, and never calls ``symrmt.figures.main``. The checks are
shown to catch a planted stub and a planted script whose figure is not registered.
"""
import ast
import json
import pathlib
import re

import pytest

from symrmt.cli import main
from symrmt.figures import FIGURES

ROOT = pathlib.Path(__file__).parents[2]
#: The standalone scripts of derivations/ behind the pages' tables (minutes to hours, no figure): not in the
#: gallery (docs/conf.py's ignore_pattern says the same).
TABLE_SCRIPTS = {"finite_size", "gaussian_equivalence", "general_weights_elliptic", "general_weights_grid", "general_weights_minilm",
                 "outlier_anchor", "softmax_limits", "softmax_orientation"}
SCRIPTS = sorted(s for s in (ROOT / "derivations").glob("*.py") if s.stem not in TABLE_SCRIPTS)


def example_problems(name: str, source: str) -> list[str]:
    """What keeps the gallery script ``name`` (its ``source``) from being a real example of figure ``name``."""
    tree = ast.parse(source)
    problems = []
    docstring = ast.get_docstring(tree) or ""
    if name not in FIGURES:
        problems.append(f"{name} is not a registered figure (symrmt figure --list)")
    if f"symrmt figure {name}" not in " ".join(docstring.split()):
        problems.append(f"the docstring does not name `symrmt figure {name}`")
    if "figures import main" in source or re.search(r"\bmain\(", source):
        problems.append("a stub: it calls symrmt.figures.main instead of the public API")
    lines = {n.lineno for node in tree.body[1:] for n in ast.walk(node) if hasattr(n, "lineno")}
    if not 5 <= len(lines) <= 25:
        problems.append(f"{len(lines)} lines of code, not 5 to 25")
    calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id == "symrmt"}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith(
        "symrmt") for a in n.names}
    if not (calls | imported):
        problems.append("calls nothing of symrmt")
    if "plt.show()" not in source:
        problems.append("draws no figure (plt.show())")
    return problems


def test_one_script_per_figure():
    assert {s.stem for s in SCRIPTS} == set(FIGURES)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_each_gallery_script_is_a_real_example(script):
    assert example_problems(script.stem, script.read_text()) == []


def test_a_planted_stub_and_an_unregistered_figure_are_caught():
    source = (ROOT / "derivations" / "rank.py").read_text()
    docstring = source[:source.index('"""', 3) + 3]
    stub = docstring + "\nimport sys\n\nfrom symrmt.figures import main\n\nif __name__ == '__main__':\n" \
                       "    sys.exit(main('rank', sys.argv[1:]))\n"
    assert "a stub: it calls symrmt.figures.main instead of the public API" in example_problems("rank", stub)
    assert example_problems("finite_size", source)[:2] == [
        "finite_size is not a registered figure (symrmt figure --list)",
        "the docstring does not name `symrmt figure finite_size`"]


def test_the_gallery_leaves_out_exactly_the_table_scripts():
    """The gallery's ignore pattern (docs/conf.py builds it from symrmt.figures.FIGURES) leaves out exactly the table
    scripts: the pattern is taken from the configuration as Sphinx reads it."""
    import runpy

    conf = runpy.run_path(str(ROOT / "docs" / "conf.py"))
    pattern = conf["sphinx_gallery_conf"]["ignore_pattern"]
    ignored = {s.stem for s in (ROOT / "derivations").glob("*.py") if re.search(pattern, str(s))}
    assert ignored == TABLE_SCRIPTS


def test_cli_figure_list_names_every_figure(capsys):
    assert main(["figure", "--list"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == list(FIGURES)


def test_cli_figure_runs_quick_with_size_overrides(capsys, tmp_path):
    import csv

    assert main(["figure", "rank", "--quick", "--n", "64", "--seeds", "2", "--out", str(tmp_path), "--json",
                 "--format", "svg"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == "svg" and out["image"].endswith("rank.svg")
    assert (tmp_path / "rank.svg").read_text().lstrip().startswith("<?xml")
    with (tmp_path / "rank.csv").open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["source"] == "monte_carlo"]
    assert rows and {r["n"] for r in rows} == {"64"} and {r["seeds"] for r in rows} == {"2"}


def test_cli_figure_help_names_the_default_folder_and_the_formats(capsys):
    from symrmt.figures import DEFAULT_OUT

    assert main(["figure", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"./{DEFAULT_OUT}" in text and "png,pdf,svg" in text


def test_cli_figure_default_folder_is_in_the_current_directory(capsys, tmp_path, monkeypatch):
    from symrmt.figures import DEFAULT_OUT

    monkeypatch.chdir(tmp_path)
    assert main(["figure", "rank", "--quick", "--n", "64", "--seeds", "2", "--quiet", "--format", "pdf"]) == 0
    assert (tmp_path / DEFAULT_OUT / "rank.pdf").read_bytes()[:5] == b"%PDF-"
    assert (tmp_path / DEFAULT_OUT / "rank.csv").exists()


def test_cli_unknown_figure_exits_2(capsys):
    assert main(["figure", "nope"]) == 2
    assert "random_inputs" in capsys.readouterr().err
