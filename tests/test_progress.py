"""symrmt.runtime.progress: one progress bar for simulate, sweep and figures."""
import sys

import pytest

from symrmt.runtime.progress import DELAY, progress_bar


class _Terminal:
    """A stderr that says whether it is a terminal and swallows what tqdm writes."""

    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        pass

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("tty, enabled, shown", [(True, True, True), (False, True, False), (True, False, False)])
def test_a_manual_bar_is_for_terminals_and_runs_longer_than_the_delay(monkeypatch, tty, enabled, shown):
    monkeypatch.setattr(sys, "stderr", _Terminal(tty))
    bar = progress_bar(desc="sweep", unit="point", total=10, initial=4, enabled=enabled)   # enabled=False: --quiet
    assert bar.disable is (not shown) and bar.n == 4
    if shown:
        assert bar.delay == DELAY == 2
    bar.close()


@pytest.mark.parametrize("tty, enabled", [(True, True), (False, True), (True, False)])
def test_items_come_back_untouched_without_a_bar(monkeypatch, tty, enabled):
    monkeypatch.setattr(sys, "stderr", _Terminal(tty))
    items = [1, 2]
    bar = progress_bar(items, desc="simulate", unit="seed", enabled=enabled)
    if tty and enabled:
        assert type(bar).__name__ == "tqdm" and list(bar) == items
    else:
        assert bar is items
