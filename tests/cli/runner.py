"""Run ``symrmt`` in-process and read what it printed (used by every test of the command line)."""
from __future__ import annotations

import json

from symrmt.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of ``symrmt ARGV``."""
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def run_json(capsys, *argv) -> dict:
    """The JSON that ``symrmt ARGV --json`` prints; the command must succeed."""
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def assert_refused(capsys, argv, needle: str) -> str:
    """``symrmt ARGV`` exits 2 with nothing on stdout and one line on stderr holding ``needle``; returns it."""
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err, err
    return err
