"""Tests of symrmt.solve, one file per module."""
