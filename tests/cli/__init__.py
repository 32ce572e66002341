"""Tests of the command line, one file per module of :mod:`symrmt.cli`."""
