"""Test configuration: one Hypothesis profile; no on-disk Hermite cache (each run recomputes); no background search
for closed forms (no detached process outlives a test; the foreground waits its 1 s as before); NumPy code only
unless a test asks for the Numba kernels (symrmt.runtime.jit.mode), so that no test pays for compiling them by chance."""
import os

os.environ["SYMRMT_CACHE_DIR"] = "off"   # tests/nonlinearity/test_cache.py tests the disk cache with its own folder
os.environ["SYMRMT_BACKGROUND_SEARCH"] = "0"   # tests/nonlinearity/test_background.py turns it on and waits
os.environ["SYMRMT_JIT"] = "never"       # tests/test_jit.py, tests/codegen/test_numba_backend.py: the kernels

from hypothesis import settings

settings.register_profile("symrmt", deadline=None, max_examples=25, print_blob=True)
settings.load_profile("symrmt")
