"""The harness itself catches what it must: a changed file, a second line, a wrong status (planted)."""
from __future__ import annotations

import pytest

from .harness import Case, run_case


def _spec(folder):
    (folder / "keep.txt").write_text("precious\n")


def test_a_refusal_passes(tmp_path, capsys):
    run_case(Case("gamma-negative", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "-1"], "gamma",
                  setup=_spec, kept=["keep.txt"]), tmp_path, capsys)


def test_a_planted_damage_is_caught(tmp_path, capsys):
    def damage(folder):
        _spec(folder)
    case = Case("damage", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "-1"], "gamma", setup=damage,
                kept=["keep.txt"])
    import symrmt.cli as cli
    original = cli.main

    def damaging(argv):
        (tmp_path / "keep.txt").write_text("lost")
        return original(argv)
    from . import harness
    harness.main, saved = damaging, harness.main
    try:
        with pytest.raises(AssertionError, match="changed"):
            run_case(case, tmp_path, capsys)
    finally:
        harness.main = saved


def test_a_wrong_needle_is_caught(tmp_path, capsys):
    with pytest.raises(AssertionError):
        run_case(Case("needle", ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "-1"], "no such words"),
                 tmp_path, capsys)
