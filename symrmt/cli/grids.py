"""Grids on every numeric axis of ``symrmt theory``: c, d and the geometry, each ``V1,V2,...`` or ``LO:HI:NUM[log]``.

``LO:HI:NUM`` is evenly spaced and ``LO:HI:NUMlog`` log-spaced, on every axis (:func:`symrmt.validate.grid`).

An axis flag (:data:`AXES`) parses to an array (:func:`symrmt.cli.arguments.axis_parser`). With one value each,
a command reads them as numbers (:func:`collapse_axes`); with more, each becomes one axis of the output, in the
order of :data:`AXES`, and the geometry of every point is built by :class:`symrmt.geometry.Geometry`, the one
owner of the conversion from norms and cosines to a Gram matrix (:func:`gram_grid`).
"""
from __future__ import annotations

import argparse
import copy

import numpy as np

from .arguments import GEOMETRY_FLAGS, geometry

__all__ = ["AXES", "grid_axes", "collapse_axes", "gram_grid"]

#: The flags that take grids, in the order of the output's axes (before f's parameters and gamma).
AXES = ("c", "diag", *GEOMETRY_FLAGS, "w_norm")


def grid_axes(args: argparse.Namespace) -> dict[str, np.ndarray]:
    """The axis flags given more than one value, in the order of :data:`AXES`."""
    return {name: value for name in AXES
            if isinstance(value := getattr(args, name, None), np.ndarray) and value.size > 1}


def collapse_axes(args: argparse.Namespace) -> None:
    """Each axis flag given one value becomes that number (in place), as the commands without grids read it."""
    for name in AXES:
        value = getattr(args, name, None)
        if isinstance(value, np.ndarray):
            setattr(args, name, float(value[0]))


def gram_grid(args: argparse.Namespace, values: dict) -> np.ndarray | None:
    """The Gram matrices of every point of the geometry axes, shape ``(..., 3, 3)`` broadcasting with the others.

    ``values`` holds each axis flag as an array shaped for its output axis, or its one value (None: not given).
    ``--gram`` is returned as it is (with grids of the other flags refused by
    :func:`symrmt.cli.arguments.geometry`); no geometry at all gives None (no signal, identity weights).
    """
    if getattr(args, "gram", None) is not None:
        geometry(args)                     # refuses geometry flags given with --gram
        return args.gram
    names = [*GEOMETRY_FLAGS, "w_norm"]
    arrays = {k: values[k] for k in names if values.get(k) is not None}
    if not arrays and getattr(args, "preset", None) is None:
        return None
    point = copy.copy(args)
    shape = np.broadcast_shapes(*(np.shape(v) for v in arrays.values()))
    flat = {k: np.broadcast_to(v, shape).ravel() for k, v in arrays.items()}
    grams = []
    for i in range(int(np.prod(shape))):
        for k in names:
            setattr(point, k, float(flat[k][i]) if k in flat else None)
        grams.append(geometry(point).gram())
    return np.array(grams).reshape(*shape, *grams[0].shape)
