"""Tests of symrmt.codegen, one file per module."""
