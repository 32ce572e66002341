"""symrmt.nonlinearity.budget: SymPy runs in child processes under a CPU-time budget."""
from __future__ import annotations

import multiprocessing
import time

import pytest
import sympy as sp

from symrmt.nonlinearity import budget


def _sleep_then_send(conn, expr):
    time.sleep(1.0)                      # waiting uses no CPU time
    conn.send(expr)


def _spin_then_send(conn, expr):
    end = time.process_time() + 30.0     # 30 s of CPU: far beyond the budget below
    while time.process_time() < end:
        pass
    conn.send(expr)


@pytest.mark.skipif(not hasattr(budget.signal, "setitimer"), reason="CPU-time budgets need setitimer (Unix)")
def test_sympy_budget_is_cpu_time_not_wall_clock():
    """A child that waits (a busy machine) keeps its budget; a child that computes past its budget is stopped.

    So which closed forms are found does not depend on the load of the machine.
    """
    assert budget.run_limited(_sleep_then_send, sp.Integer(7), 0.3) == 7
    start = time.monotonic()
    assert budget.run_limited(_spin_then_send, sp.Integer(7), 0.3) is None
    assert time.monotonic() - start < 0.3 * budget.WALL_CLOCK_FACTOR + 1.0
    assert not multiprocessing.active_children()
