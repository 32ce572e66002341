"""``symrmt demo``: a small run of the whole pipeline."""
from __future__ import annotations

from ..runner import run_json


def test_demo_smoke(capsys, tmp_path):
    out = run_json(capsys, "demo", "--n", "64", "--seeds", "2", "--plot", str(tmp_path / "demo.png"))
    assert len(out["settings"]) == 3 and (tmp_path / "demo.png").exists()
