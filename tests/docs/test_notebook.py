"""docs/tutorial.ipynb runs headless from top to bottom (nbclient, a test extra), and its figures follow the
package's rules: every colour-mapped image has a norm centred at 0 with limits -h and +h and a colour bar with
ticks on both sides of 0, and every error bar is the 95% Student-t half-width t_{0.975, s-1} se of its seeds.
The rule checkers below catch planted violations (an uneven TwoSlopeNorm, ticks on one side, +-2 se bars)."""
import json
import pathlib
import re

import matplotlib
import numpy as np
import pytest
from scipy import stats

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.collections import QuadMesh
from matplotlib.colors import CenteredNorm, TwoSlopeNorm
from matplotlib.container import ErrorbarContainer
from matplotlib.image import AxesImage

ROOT = pathlib.Path(__file__).parents[2]
NOTEBOOK = ROOT / "docs" / "tutorial.ipynb"


def colour_scale_problems(figures) -> list[str]:
    """One line per colour-mapped image (pcolormesh, imshow) whose scale is not centred at 0 with symmetric
    limits (vmin = -vmax < 0, norm(0) = 1/2), or whose colour bar lacks ticks below or above 0."""
    problems, seen = [], 0
    for figure in figures:
        images = [(ax, m) for ax in figure.axes for m in [*ax.collections, *ax.images]
                  if isinstance(m, (QuadMesh, AxesImage))]
        bar_axes = {m.colorbar.ax for _, m in images if m.colorbar is not None}   # a colour bar draws a mesh too
        for ax, image in images:
            if ax in bar_axes:
                continue
            seen += 1
            norm, where = image.norm, f"{ax.get_title() or 'an image'}"
            low, high = float(norm.vmin), float(norm.vmax)
            if not (low < 0 < high and np.isclose(low, -high, rtol=1e-12, atol=0.0)):
                problems.append(f"{where}: limits ({low:g}, {high:g}) are not -h and +h")
            if not np.isclose(float(norm(0.0)), 0.5, rtol=0.0, atol=1e-12):
                problems.append(f"{where}: 0 maps to {float(norm(0.0)):g}, not the centre of the colour map")
            if image.colorbar is None:
                problems.append(f"{where}: no colour bar")
                continue
            ticks = np.asarray(image.colorbar.get_ticks(), dtype=float)
            ticks = ticks[(ticks >= low) & (ticks <= high)]
            if not (np.any(ticks < 0) and np.any(ticks > 0)):
                problems.append(f"{where}: colour-bar ticks {ticks.tolist()} are not on both sides of 0")
    return problems if seen else ["no colour-mapped image to check"]


def _bars(ax):
    """(y, half-width) of each error-bar series of ``ax`` (symmetric bars: half of the drawn segment)."""
    for container in ax.containers:
        if isinstance(container, ErrorbarContainer):
            line, _, (segments, *_) = container
            bottom_top = np.array([[s[0][1], s[1][1]] for s in segments.get_segments()])
            yield np.asarray(line.get_ydata(), dtype=float), np.abs(bottom_top[:, 1] - bottom_top[:, 0]) / 2


def interval_problems(figures, per_seed_arrays) -> list[str]:
    """One line per error-bar series that is not mean +- t_{0.975, s-1} sd/sqrt(s) of one of ``per_seed_arrays``
    (shape (seeds, points)); computed here from SciPy, independently of symrmt.analysis.seeds."""
    expected = []
    for per_seed in per_seed_arrays:
        seeds = per_seed.shape[0]
        half = stats.t.ppf(0.975, seeds - 1) * per_seed.std(axis=0, ddof=1) / np.sqrt(seeds)
        expected.append((per_seed.mean(axis=0), half))
    problems, seen = [], 0
    for figure in figures:
        for ax in figure.axes:
            for y, half in _bars(ax):
                seen += 1
                match = [h for mean, h in expected if mean.shape == y.shape and np.allclose(mean, y, rtol=1e-12)]
                if not match:
                    problems.append(f"{ax.get_title()}: error bars at {y.tolist()} match no Monte Carlo mean")
                elif not np.allclose(half, match[0], rtol=1e-9, atol=0.0):
                    ratio = np.round(half / match[0], 3).tolist()
                    problems.append(f"{ax.get_title()}: half-widths are {ratio} times the 95% t half-widths")
    return problems if seen else ["no error bar to check"]


# --- the checkers' power, on small figures with the notebook's former violations ----------------------


def _map(norm, ticks=None):
    figure, ax = plt.subplots()
    mesh = ax.pcolormesh(np.array([[-0.003, 0.1], [0.2, 0.3]]), cmap="RdBu_r", norm=norm)
    figure.colorbar(mesh, ticks=ticks)
    return figure


def test_colour_scale_checker_accepts_a_centred_symmetric_scale():
    figure = _map(CenteredNorm(vcenter=0.0, halfrange=0.3), ticks=[-0.2, 0.0, 0.2])
    assert colour_scale_problems([figure]) == []
    plt.close(figure)


@pytest.mark.parametrize("norm, ticks, complaint", [
    # The notebook's former scale: -0.003 as dark a blue as +0.3 is a red, no negative tick.
    (TwoSlopeNorm(vmin=-0.003, vcenter=0.0, vmax=0.3), None, "not -h and +h"),
    (CenteredNorm(vcenter=0.0, halfrange=0.3), [0.0, 0.1, 0.2], "not on both sides of 0"),
    (CenteredNorm(vcenter=0.1, halfrange=0.3), None, "not -h and +h"),
])
def test_colour_scale_checker_catches_planted_violations(norm, ticks, complaint):
    figure = _map(norm, ticks)
    problems = colour_scale_problems([figure])
    assert any(complaint in p for p in problems), problems
    plt.close(figure)


def test_interval_checker_catches_two_standard_errors():
    per_seed = np.random.default_rng(0).normal(1.0, 0.1, size=(3, 4))
    mean, sd = per_seed.mean(axis=0), per_seed.std(axis=0, ddof=1)
    figure, ax = plt.subplots()
    ax.errorbar(np.arange(4), mean, stats.t.ppf(0.975, 2) * sd / np.sqrt(3))
    assert interval_problems([figure], [per_seed]) == []
    ax.errorbar(np.arange(4), mean, 2 * sd / np.sqrt(3))        # the notebook's former +-2 se: 2/4.30 of the t bar
    problems = interval_problems([figure], [per_seed])
    assert len(problems) == 1 and "0.465" in problems[0], problems
    plt.close(figure)


# --- the notebook itself ------------------------------------------------------------------------------


@pytest.mark.slow
def test_tutorial_figures_follow_the_colour_and_interval_rules(monkeypatch):
    """Run the code cells in order in this process with the Agg back end, keep every figure plt.show() is
    called on, and check both rules on them; then plant an uneven norm in the phase diagram and see it caught."""
    figures = []
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: figures.append(plt.gcf()))
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    namespace: dict = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)
    mc = namespace["mc"]
    assert mc.seeds >= 2
    assert colour_scale_problems(figures) == []
    assert interval_problems(figures, [mc.attention_per_seed, mc.linear_per_seed]) == []

    (mesh,) = [m for figure in figures for ax in figure.axes for m in ax.collections
               if isinstance(m, QuadMesh) and m.colorbar is not None]
    gap = namespace["gap"]
    mesh.set_norm(TwoSlopeNorm(vmin=float(gap.min()), vcenter=0.0, vmax=float(gap.max())))
    assert any("not -h and +h" in p for p in colour_scale_problems(figures))
    plt.close("all")


@pytest.mark.slow
def test_tutorial_notebook_executes():
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # Run from the repository root, so that the kernel imports this checkout's symrmt.
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    latex = [o["data"]["text/latex"] for o in outputs if "text/latex" in o.get("data", {})]
    assert any(r"\nu" in text for text in latex)
    assert any("image/png" in o.get("data", {}) for o in outputs)


def test_the_notebook_cites_paths_that_exist():
    text = NOTEBOOK.read_text()
    cited = set(re.findall(r"`((?:tests|docs|symrmt|benchmarks|derivations)/[\w./]+)`", text))
    assert cited, "the notebook cites no path (the pattern no longer matches its text)"
    assert [p for p in cited if not (ROOT / p).exists()] == []
