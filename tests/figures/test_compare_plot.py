"""``symrmt compare --plot``: titled in mathematics, with n, p, seeds and the geometry; t intervals."""
import numpy as np
import pytest
from scipy import stats

import symrmt.cli.commands.simulate
import symrmt.presentation.plotting
from symrmt.cli import main


@pytest.fixture
def captured(monkeypatch):
    calls = []
    real = symrmt.presentation.plotting.plot_panels

    def spy(panels, path, title=""):
        calls.append((panels, title))
        return real(panels, path, title=title)

    # the command imports plot_panels at the top of its module: the spy goes where the command looks it up
    monkeypatch.setattr(symrmt.cli.commands.simulate, "plot_panels", spy)
    return calls


def test_title_is_mathematics_with_the_run_and_the_geometry(captured, tmp_path, capsys):
    path = tmp_path / "cmp.svg"
    assert main(["compare", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1", "--n", "64", "--seeds", "3",
                 "--mu-norm", "1", "--wk-norm", "2", "--wq-norm", "2", "--cos-mu-wk", "1", "--cos-mu-wq", "1",
                 "--cos-wk-wq", "1", "--quiet", "--plot", str(path)]) == 0
    assert path.read_text().lstrip().startswith("<?xml")
    (panel,), title = captured[0]
    assert r"$f(x) = \tanh{\left(x \right)}$" in title and "$c = p/n = 1$" in title
    assert "$n = 64$" in title and "$p = 64$" in title and "3 seeds" in title
    assert r"$\|\mu\| = 1$" in title and r"$\|w_K\| = 2$" in title and r"$\cos(w_K, w_Q) = 1$" in title
    assert "f = tanh(x)" not in title and "**" not in title            # not Python syntax
    assert panel["seeds"] == 3


def test_title_of_pure_noise_names_it(captured, tmp_path, capsys):
    assert main(["compare", "--f", "x**3 - 3*x", "--c", "0.5", "--gamma", "1", "--n", "64", "--seeds", "2", "--quiet",
                 "--plot", str(tmp_path / "cmp.png")]) == 0
    title = captured[0][1]
    assert r"$\mu = 0$" in title and "$w_K = w_Q = 0$" in title and "x^{3} - 3 x" in title


def test_bars_are_95_percent_t_intervals():
    from symrmt.presentation.plotting import _interval

    assert np.allclose(_interval([0.01, 0.02], 3), stats.t.ppf(0.975, 2) * np.array([0.01, 0.02]))
