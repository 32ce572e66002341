"""Test configuration: one Hypothesis profile; no on-disk Hermite cache (each run recomputes)."""
import os

os.environ["SYMRMT_CACHE_DIR"] = "off"   # tests/nonlinearity/test_cache.py tests the disk cache with its own folder

from hypothesis import settings

settings.register_profile("symrmt", deadline=None, max_examples=25, print_blob=True)
settings.load_profile("symrmt")
