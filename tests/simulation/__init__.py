"""Tests of symrmt.simulation, one file per module (reference.py: an independent implementation)."""
