"""derivations/: one gallery script per registered figure, each a thin caller of symrmt.figures."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from symrmt.cli import main
from symrmt.figures import FIGURES

ROOT = pathlib.Path(__file__).parents[2]
#: The gallery scripts of registered figures (derivations/ also holds standalone scripts, e.g. finite_size.py).
SCRIPTS = sorted(s for s in (ROOT / "derivations").glob("*.py") if "from symrmt.figures import main" in s.read_text())


def _env():
    # Run the scripts against this checkout's package, not whichever symrmt is installed.
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def test_one_script_per_figure():
    assert {s.stem for s in SCRIPTS} == set(FIGURES)


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_script_help_names_its_options(script):
    proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120,
                          env=_env())
    assert proc.returncode == 0, proc.stderr
    assert "--quick" in proc.stdout and "--out" in proc.stdout and "--format" in proc.stdout


def test_script_runs_quick_into_the_chosen_folder(tmp_path):
    script = ROOT / "derivations" / "rank.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--out", str(tmp_path)], capture_output=True,
                          text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "rank.png").exists() and (tmp_path / "rank.csv").exists()


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
