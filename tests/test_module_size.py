"""Every module of symrmt stays under 600 lines: past that a module holds more than one job."""
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).parents[1] / "symrmt"
LIMIT = 600


def long_modules(root: pathlib.Path, limit: int = LIMIT) -> list[str]:
    return [f"{path.relative_to(root.parent)}: {n} lines" for path in sorted(root.rglob("*.py"))
            if (n := len(path.read_text().splitlines())) > limit]


def test_no_module_over_600_lines():
    assert long_modules(PACKAGE) == []


@pytest.mark.parametrize("lines, found", [(LIMIT, False), (LIMIT + 1, True)])
def test_a_planted_long_module_is_caught(tmp_path, lines, found):
    (tmp_path / "symrmt").mkdir()
    (tmp_path / "symrmt" / "long.py").write_text("x = 1\n" * lines)
    assert bool(long_modules(tmp_path / "symrmt")) is found
