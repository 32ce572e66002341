"""Summaries over independent seeds: :mod:`symrmt.simulation.seeds`, re-exported beside the verdicts.

The statistics know no theory, so they live with the Monte Carlo that summarizes its own seeds;
this module keeps the name the figures, the sweep and the notebooks use.

>>> from symrmt.analysis.seeds import t_quantile
>>> round(float(t_quantile(3)), 2)
4.3
"""
from __future__ import annotations

from ..simulation.seeds import mean_se, t_interval, t_quantile

__all__ = ["mean_se", "t_quantile", "t_interval"]
