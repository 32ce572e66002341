"""Helpers of the property suite (tests/validation/test_properties.py, tests/validation/test_property_mutations.py).

``reference``  independent derivations (no symrmt import): the numbers the theory must reproduce.
``theories``   the theory under test behind one small interface, real or mutated.
``checks``     the properties as plain functions of a theory, so that they run on either.
"""
