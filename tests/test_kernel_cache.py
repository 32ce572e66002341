"""symrmt.runtime.kernel_cache: compiled kernels kept on disk, used only after their hashes check."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from symrmt.runtime import jit, kernel_cache

numba = pytest.importorskip("numba")

SOURCE = "def kernel(X, out):\n    for i in range(X.shape[1]):\n        out[0, i] = sqrt(X[0, i]) + 2.0 * X[1, i]\n"
SIGNATURE = "void(float64[:, ::1], float64[:, ::1])"


def _compile(fn, signature):
    return jit.njit(fn, signature, cache=True)


def _run(kernel):
    X = np.array([[4.0, 9.0], [1.0, -1.0]])
    out = np.empty((1, 2))
    kernel(X, out)
    return out[0].tolist()


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(tmp_path))
    kernel_cache._unusable.clear()
    return tmp_path / "kernels"


def _files(folder):
    stem = next(folder.glob("k_*.py")).stem
    return folder / f"{stem}.py", folder / f"{stem}.json", sorted((folder / "__pycache__").glob(f"{stem}.*.nb[ic]"))


def test_a_kernel_is_written_with_a_manifest_and_found_again(folder):
    assert not kernel_cache.on_disk(SOURCE, SIGNATURE)
    assert _run(kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile)) == [4.0, 1.0]
    source, manifest, numba_files = _files(folder)
    assert source.read_text().endswith(SOURCE) and numba_files
    recorded = json.loads(manifest.read_text())["files"]
    assert sorted(recorded) == [p.name for p in numba_files]
    assert kernel_cache.on_disk(SOURCE, SIGNATURE)
    assert not kernel_cache.on_disk(SOURCE.replace("2.0", "3.0"), SIGNATURE)


def test_a_second_process_loads_the_kernel_instead_of_compiling_it(folder):
    kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile)
    script = textwrap.dedent(f"""
        import numpy as np
        from symrmt.runtime import jit, kernel_cache
        kernel = kernel_cache.cached_kernel({SOURCE!r}, {SIGNATURE!r}, lambda f, s: jit.njit(f, s, cache=True))
        X = np.array([[4.0, 9.0], [1.0, -1.0]]); out = np.empty((1, 2)); kernel(X, out)
        print(out[0].tolist(), kernel.stats.cache_hits.total())
    """)
    env = {"SYMRMT_CACHE_DIR": str(folder.parent), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120,
                         cwd=str(pytest.importorskip("symrmt").__file__).rsplit("/symrmt/", 1)[0])
    assert run.returncode == 0, run.stderr
    values, hits = run.stdout.strip().splitlines()[-1].rsplit("]", 1)
    assert values + "]" == "[4.0, 1.0]" and int(hits) >= 1, run.stdout     # loaded from Numba's cache


def test_a_tampered_source_file_is_never_executed_and_is_replaced(folder):
    kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile)
    source, _, _ = _files(folder)
    planted = source.read_text().replace("2.0 * X[1, i]", "2.0 * X[1, i] + 1000.0")   # a forged kernel
    source.write_text(planted)
    with pytest.warns(kernel_cache.KernelCacheWarning, match="corrupt or foreign"):
        kernel = kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile)
    assert _run(kernel) == [4.0, 1.0]                              # the generated text ran, not the planted one
    assert "1000.0" not in source.read_text()


def test_tampered_numba_files_are_deleted_and_recompiled(folder):
    kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile)
    _, manifest, numba_files = _files(folder)
    data = next(p for p in numba_files if p.suffix == ".nbc")
    data.write_bytes(b"not a pickle Numba wrote" + data.read_bytes()[24:])
    with pytest.warns(kernel_cache.KernelCacheWarning, match="do not match their recorded hashes"):
        kernel = kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile)
    assert _run(kernel) == [4.0, 1.0]
    _, manifest, numba_files = _files(folder)
    recorded = json.loads(manifest.read_text())["files"]              # rewritten for the recompiled files
    assert all(recorded[p.name] == kernel_cache._sha(p) for p in numba_files)


def test_an_unwritable_folder_turns_the_cache_off_with_one_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    monkeypatch.setenv("SYMRMT_CACHE_DIR", str(blocker))
    kernel_cache._unusable.clear()
    with pytest.warns(kernel_cache.KernelCacheWarning, match="cache is off"):
        assert kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile) is None


def test_off_means_nothing_on_disk(monkeypatch):
    monkeypatch.setenv("SYMRMT_CACHE_DIR", "off")
    assert kernel_cache.kernel_folder() is None and kernel_cache.cached_kernel(SOURCE, SIGNATURE, _compile) is None
    assert not kernel_cache.on_disk(SOURCE, SIGNATURE)


def test_a_kernel_on_disk_is_loaded_once_loading_has_paid(monkeypatch):
    # auto: a kernel found on disk costs loading (LOAD_SECONDS), one not found costs compiling (COMPILE_SECONDS)
    monkeypatch.setattr(jit._Ledger, "seconds", jit.LOAD_SECONDS)
    with jit.mode("auto"):
        stored = jit.Budget(lambda: "kernel", on_disk=lambda: True)
        fresh = jit.Budget(lambda: "kernel", on_disk=lambda: False)
        assert stored.native() == "kernel" and fresh.native() is None
        monkeypatch.setattr(jit._Ledger, "seconds", jit.LOAD_SECONDS / 2)
        assert jit.Budget(lambda: "kernel", on_disk=lambda: True).native() is None
