"""symrmt.sweep.backends: a Dask cluster gives the records of the local pool."""
from __future__ import annotations

import numpy as np
import pytest

from _support.sweep import by_key
from symrmt.sweep import read_records, run_sweep


def test_a_local_dask_cluster_gives_the_same_records(local_run, tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    spec, _, _, records = local_run
    out = tmp_path / "dask.jsonl"
    # In-process workers reached over TCP on loopback: the path a real cluster takes, without spawn cost.
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        report = run_sweep(spec, out, scheduler=cluster.scheduler_address, progress=False)
    assert report["computed"] == 16
    local, remote = by_key(records), by_key(read_records(out)[1])
    assert local.keys() == remote.keys()
    for key, record in local.items():
        assert {k: v for k, v in remote[key].items() if k not in ("theory", "mc")} == \
               {k: v for k, v in record.items() if k not in ("theory", "mc")}
        # Same draws and inputs; only BLAS with another thread count could reorder a sum.
        for part in ("theory", "mc"):
            for name in ("attention", "linear"):
                np.testing.assert_allclose(remote[key][part][name], record[part][name], rtol=1e-12)
