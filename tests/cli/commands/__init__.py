"""Tests of the command modules of :mod:`symrmt.cli.commands`, one file per module."""
