"""Tests of symrmt.derive, one file per module."""
