"""Hostile inputs, category files: outputs onto inputs or onto each other, folders, kernel files, default names.

Each case asserts the exit status, the one stderr line, and that the listed files are byte for byte as
before (:mod:`.harness`). Inputs are compared with outputs by identity: the same file through a symbolic
link, a hard link or ``sub/..`` is refused like the same name. A default output the user did not name
(the demo's plot, the sweep summary's CSV, a figure in the default folder) never replaces a file: it
takes the first free name ``NAME-1.EXT``, ... and says which (docs/usage.md, "Files the commands write").
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from symrmt import cli

from .harness import Case, run_case

OLD = b"the user's precious file\n"
SPEC = {"f": ["tanh(x)"], "c": [1.0], "n": [24], "gamma": [0.5], "seeds": 2}


@pytest.fixture(scope="module")
def sweep_result(tmp_path_factory) -> bytes:
    """The bytes of a finished result file (one point, two seeds), for the summaries that must succeed."""
    folder = tmp_path_factory.mktemp("sweep")
    (folder / "spec.json").write_text(json.dumps(SPEC))
    from symrmt.sweep import load_spec, run_sweep

    run_sweep(load_spec(folder / "spec.json"), folder / "r.jsonl", workers=1, progress=False)
    return (folder / "r.jsonl").read_bytes()


def _model(folder: Path, name: str = "model.safetensors") -> None:
    """A BERT-style safetensors file of one layer, p = 8, two heads (the reader goes by content, not by name)."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    tensors = {f"encoder.layer.0.attention.self.{part}.{kind}": rng.standard_normal(shape).astype(np.float32)
               for part in ("query", "key") for kind, shape in (("weight", (8, 8)), ("bias", (8,)))}
    save_file(tensors, str(folder / name))
    (folder / "config.json").write_text(json.dumps({"num_attention_heads": 2}))


def _then(*steps):
    def setup(folder: Path) -> None:
        for step in steps:
            step(folder)
    return setup


def _old(name: str):
    def make(folder: Path) -> None:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(OLD)
    return make


def _link(name: str, target: str, hard: bool = False):
    def make(folder: Path) -> None:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        if hard:
            os.link(folder / target, folder / name)
        else:
            (folder / name).symlink_to(target)
    return make


def _folder(name: str, mode: int | None = None):
    def make(folder: Path) -> None:
        (folder / name).mkdir(parents=True, exist_ok=True)
        if mode is not None:
            os.chmod(folder / name, mode)
    return make


def _spec(folder: Path) -> None:
    (folder / "spec.json").write_text(json.dumps(SPEC))


def _results(folder: Path) -> None:
    """A stand-in result file: the outputs are checked before it is read, so any bytes show the refusal."""
    (folder / "r.jsonl").write_bytes(OLD)


WEIGHTS = ["weights", "{tmp}/model.safetensors", "--rank-max", "2", "--plot"]
THEORY = ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--csv"]
SUMMARY = ["sweep", "--summary", "{tmp}/r.jsonl", "--csv"]
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False
as_root = pytest.mark.skipif(ROOT, reason="root writes into any folder and file: no permission to refuse")

CASES = [
    # ---- an output that is the command's own input
    Case("weights-plot-onto-its-input", ["weights", "{tmp}/model.png", "--rank-max", "2", "--plot", "{tmp}/model.png"],
         "is the file given to FILE", setup=lambda f: _model(f, "model.png"), kept=["model.png"]),
    Case("weights-plot-onto-input-by-symlink", [*WEIGHTS, "{tmp}/plot.png"], "is the file given to FILE",
         setup=_then(_model, _link("plot.png", "model.safetensors")), kept=["model.safetensors"]),
    Case("weights-plot-onto-input-by-hard-link", [*WEIGHTS, "{tmp}/plot.png"], "is the file given to FILE",
         setup=_then(_model, _link("plot.png", "model.safetensors", hard=True)), kept=["model.safetensors"]),
    Case("weights-plot-onto-input-by-sub-dot-dot", ["weights", "{tmp}/model.svg", "--rank-max", "2", "--plot",
                                                    "{tmp}/sub/../model.svg"], "is the file given to FILE",
         setup=_then(lambda f: _model(f, "model.svg"), _folder("sub")), kept=["model.svg"]),
    Case("weights-plot-onto-input-by-symlinked-folder", ["weights", "{tmp}/model.pdf", "--rank-max", "2", "--plot",
                                                        "{tmp}/alias/model.pdf"], "is the file given to FILE",
         setup=_then(lambda f: _model(f, "model.pdf"), _link("alias", ".")), kept=["model.pdf"]),
    Case("summary-csv-onto-its-result-file", [*SUMMARY, "{tmp}/r.jsonl"], "is the file given to --summary",
         setup=_results, kept=["r.jsonl"]),
    Case("summary-csv-onto-result-by-symlink", [*SUMMARY, "{tmp}/r.csv"], "is the file given to --summary",
         setup=_then(_results, _link("r.csv", "r.jsonl")), kept=["r.jsonl"]),
    Case("summary-csv-onto-result-by-hard-link", [*SUMMARY, "{tmp}/r.csv"], "is the file given to --summary",
         setup=_then(_results, _link("r.csv", "r.jsonl", hard=True)), kept=["r.jsonl"]),
    Case("summary-csv-onto-result-by-sub-dot-dot", [*SUMMARY, "{tmp}/sub/../r.jsonl"],
         "is the file given to --summary", setup=_then(_results, _folder("sub")), kept=["r.jsonl"]),
    Case("sweep-out-onto-its-spec", ["sweep", "{tmp}/spec.json", "--out", "{tmp}/spec.json", "--quiet"],
         "is the file given to SPEC", setup=_spec, kept=["spec.json"]),
    Case("sweep-out-onto-spec-by-symlink", ["sweep", "{tmp}/spec.json", "--out", "{tmp}/out.jsonl", "--quiet"],
         "is the file given to SPEC", setup=_then(_spec, _link("out.jsonl", "spec.json")), kept=["spec.json"]),
    # ---- two outputs of one command that are one file
    Case("figure-csv-is-a-link-to-its-image", ["figure", "rank", "--quick", "--quiet", "--out", "{tmp}/d"],
         "are the same file", setup=_then(_old("d/rank.png"), _link("d/rank.csv", "rank.png")),
         kept=["d/rank.png"]),
    Case("latex-body-and-document", ["latex", "--body", "{tmp}/a.tex", "--document", "{tmp}/a.tex"], "give one",
         setup=_old("a.tex"), kept=["a.tex"]),
    # ---- what cannot be a file
    Case("csv-is-a-folder", [*THEORY, "{tmp}/out.csv"], "is a folder", setup=_folder("out.csv")),
    Case("csv-ends-with-a-slash", [*THEORY, "{tmp}/new/"], "is a folder"),
    Case("latex-document-is-a-folder", ["latex", "--document", "{tmp}/paper.tex"], "is a folder",
         setup=_folder("paper.tex")),
    Case("plot-in-proc", [*WEIGHTS, "/proc/self/plot.png"], "under /proc", setup=_model,
         kept=["model.safetensors"]),
    Case("csv-in-sys", [*THEORY, "/sys/kernel/out.csv"], "under /sys"),
    Case("csv-onto-a-device", [*SUMMARY, "/dev/null"], "not a regular file", setup=_results, kept=["r.jsonl"]),
    Case("csv-in-a-missing-folder", [*THEORY, "{tmp}/nowhere/out.csv"], "does not exist"),
    Case("csv-under-a-file", [*THEORY, "{tmp}/notes.txt/out.csv"], "is not a folder", setup=_old("notes.txt"),
         kept=["notes.txt"]),
    Case("csv-name-too-long", [*THEORY, "{tmp}/" + "a" * 300 + ".csv"], "bytes long"),
    Case("csv-is-a-symlink-loop", [*THEORY, "{tmp}/loop.csv"], "not a regular file",
         setup=_link("loop.csv", "loop.csv")),
    Case("plot-extension-not-a-plot", [*WEIGHTS, "{tmp}/model.txt"], "extension", setup=_model,
         kept=["model.safetensors"]),
    Case("figure-out-is-a-file", ["figure", "rank", "--quick", "--quiet", "--out", "{tmp}/notes.txt"], "is a file",
         setup=_old("notes.txt"), kept=["notes.txt"]),
]

PERMISSION_CASES = [
    Case("csv-in-an-unwritable-folder", [*THEORY, "{tmp}/locked/out.csv"], "not writable",
         setup=_folder("locked", 0o500)),
    Case("csv-onto-a-read-only-file", [*THEORY, "{tmp}/old.csv"], "not writable",
         setup=_then(_old("old.csv"), lambda f: os.chmod(f / "old.csv", 0o444)), kept=["old.csv"]),
]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                 # default names land in the test's folder
    yield tmp_path
    for path in tmp_path.rglob("*"):            # give the locked folders back to pytest's clean-up
        if path.is_dir() and not path.is_symlink():
            os.chmod(path, 0o700)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_files(case, folder, capsys):
    run_case(case, folder, capsys)


@as_root
@pytest.mark.parametrize("case", PERMISSION_CASES, ids=str)
def test_permissions(case, folder, capsys):
    run_case(case, folder, capsys)


# ---- default names the user did not give: the existing file stays, the output takes a fresh name

@pytest.mark.slow
def test_summary_default_csv_never_replaces_a_file(folder, capsys, sweep_result):
    (folder / "r.jsonl").write_bytes(sweep_result)
    for name in ("r.summary.csv", "r.summary-1.csv"):
        (folder / name).write_bytes(OLD)
    line = run_case(Case("summary-default-csv-collision", ["sweep", "--summary", "{tmp}/r.jsonl"], "", status=0,
                         kept=["r.summary.csv", "r.summary-1.csv", "r.jsonl"]), folder, capsys)
    assert line == "" and (folder / "r.summary-2.csv").read_text().startswith("f,")


@pytest.mark.slow
def test_summary_default_csv_beside_a_link_to_the_result_file(folder, capsys, sweep_result):
    """The default name is a link to the result file itself: kept, and the CSV goes to a fresh name."""
    (folder / "r.jsonl").write_bytes(sweep_result)
    (folder / "r.summary.csv").symlink_to("r.jsonl")
    run_case(Case("summary-default-csv-is-a-link", ["sweep", "--summary", "{tmp}/r.jsonl", "--json"], "", status=0,
                  kept=["r.jsonl"]), folder, capsys)
    assert (folder / "r.summary.csv").is_symlink() and (folder / "r.summary-1.csv").read_text().startswith("f,")


@pytest.mark.slow
def test_demo_default_plot_never_replaces_a_file(folder, capsys):
    (folder / "symrmt-demo.png").write_bytes(OLD)
    run_case(Case("demo-default-plot-collision", ["demo", "--n", "24", "--seeds", "2", "--json"], "", status=0,
                  kept=["symrmt-demo.png"]), folder, capsys)
    assert (folder / "symrmt-demo-1.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_figure_default_folder_never_replaces_a_file(folder, capsys):
    """A figure in the default folder: NAME-k.png and NAME-k.csv with one k, free for both."""
    for name in ("symrmt-figures/rank.png", "symrmt-figures/rank-1.csv"):
        _old(name)(folder)
    run_case(Case("figure-default-folder-collision", ["figure", "rank", "--quick", "--quiet", "--json"], "",
                  status=0, kept=["symrmt-figures/rank.png", "symrmt-figures/rank-1.csv"]), folder, capsys)
    assert (folder / "symrmt-figures/rank-2.png").read_bytes()[:4] == b"\x89PNG"
    assert (folder / "symrmt-figures/rank-2.csv").read_text().startswith("figure,")


def test_a_named_output_is_replaced(folder, capsys):
    """The other half of the convention: a path the user names is replaced (atomically)."""
    _old("a.tex")(folder)
    assert cli.main(["latex", "--document", str(folder / "a.tex")]) == 0
    assert (folder / "a.tex").read_text().startswith("\\documentclass")
    assert not [p for p in os.listdir(folder) if p.endswith(".tmp")]


def test_the_cases_catch_a_command_without_the_identity_check(folder, capsys, monkeypatch):
    """Power: with the check planted out, the symbolic-link case fails (the model file is overwritten)."""
    from symrmt.cli.commands import weights

    monkeypatch.setattr(weights, "check_not_an_input", lambda *args: None)
    case = next(c for c in CASES if c.name == "weights-plot-onto-input-by-symlink")
    with pytest.raises(AssertionError):
        run_case(case, folder, capsys)
    assert (folder / "model.safetensors").read_bytes()[:4] == b"\x89PNG"
