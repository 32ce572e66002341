"""Tests of symrmt.nonlinearity, one file per module."""
