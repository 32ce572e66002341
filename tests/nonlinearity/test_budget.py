"""symrmt.nonlinearity.budget: SymPy runs in child processes stopped at a wall-clock deadline."""
from __future__ import annotations

import multiprocessing
import time

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


def test_sympy_runs_until_a_wall_clock_deadline():
    """A child that answers before the deadline is heard; one that computes past it is stopped at the deadline (not
    after a CPU budget that a busy machine stretches): the caller waits at most the time it gave."""
    assert budget.run_limited(_sleep_then_send, sp.Integer(7), time.monotonic() + 5.0) == 7
    start = time.monotonic()
    assert budget.run_limited(_sleep_then_send, sp.Integer(7), time.monotonic() + 0.3) is None
    assert budget.run_limited(_spin_then_send, sp.Integer(7), time.monotonic() + 0.3) is None
    # two waits of 0.3 s each, plus the start and the stop of two children
    assert time.monotonic() - start < 0.6 + 2.0
    assert not multiprocessing.active_children()
    assert budget.run_limited(_sleep_then_send, sp.Integer(7), time.monotonic() - 1.0) is None   # already past
