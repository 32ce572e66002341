r"""One vectorized problem: flat parameter arrays, their quadrature rule, and the Newton system.

Parameters are keyed by the compiled system's own parameter objects (its SymPy symbols,
opaque here); messages print them with ``str``.
"""
from __future__ import annotations

import time

import numpy as np

from .compiled import CompiledSystem
from .marchenko_pastur import RULES
from .settings import CACHE_ELEMENTS

__all__ = ["Problem", "stack", "evaluated"]


def evaluated(function, native, args, size: int, dtype=float, single: bool = False) -> np.ndarray:
    """``function(*args)`` as a ``(outputs, size)`` array (``single``: a function of one output).

    By its machine-code version ``native`` once :mod:`symrmt.runtime.jit` has compiled it (the same arithmetic), else by
    the NumPy function, whose time is recorded towards compiling it. ``native`` None: the NumPy function only.
    """
    if native is not None:
        values = native(args, size)
        if values is not None:
            return values
        start = time.perf_counter()
    values = function(*args)
    values = stack([values] if single else values, size, dtype)
    if native is not None:
        native.spend(time.perf_counter() - start)
    return values


def stack(values, size: int, dtype=float) -> np.ndarray:
    """``(len(values), size)`` array from a list of arrays of shape ``(size,)``, ``(size, 1)`` or scalars."""
    if all(type(v) is np.ndarray and v.shape == (size,) for v in values):     # the common case, in one copy
        return np.array(values, dtype=dtype)
    out = np.empty((len(values), size), dtype=dtype)
    for k, v in enumerate(values):                      # assignment broadcasts constants (no asarray: it
        out[k] = v[:, 0] if type(v) is np.ndarray and v.ndim == 2 else v     # is most of the cost on few points)
    return out


class Problem:
    """Flat parameter arrays of length N (one per parameter of the compiled system) and their rule."""

    def __init__(self, compiled: CompiledSystem, flat: dict, nodes: int) -> None:
        self.compiled = compiled
        self.keys = compiled.parameters
        self.variable = compiled.variable
        self.flat = flat
        self.size = len(flat[self.keys[0]]) if self.keys else 0
        # The parameters as one (P, N) table: a Newton evaluation gathers its points with one fancy index
        # instead of one per parameter (most of an evaluation's overhead on the few points of a path).
        self.table = np.array([flat[k] for k in self.keys], dtype=float).reshape(len(self.keys), self.size)
        self.nodes = nodes
        self.dtype = complex if compiled.complex else float
        if compiled.law is not None:
            law = {k: np.broadcast_to(np.asarray(v, float), (self.size,))
                   for k, v in compiled.law_parameters([flat[k] for k in self.keys]).items()}
            self.lam, self.weights = RULES[compiled.law](law, nodes)
        else:
            self.lam, self.weights = np.zeros((self.size, 1)), np.ones((self.size, 1))
        # The coarse rule inside this one (every third node, weight x3, and the last node) estimates
        # the quadrature error; ``coarse_columns`` picks its nodes out of ``lam``. Without a law there is
        # one node and nothing to estimate.
        self.coarse_columns = np.r_[np.arange(1, nodes, 3), nodes] if compiled.law is not None else np.r_[0]
        self.coarse = 3 * self.weights[:, self.coarse_columns]
        self.coarse[:, -1] = 1.0 - self.coarse[:, :-1].sum(axis=-1)     # exact constants (the only node: 1)

    def subset(self, keep, nodes: int) -> "Problem":
        return Problem(self.compiled, {k: v[keep] for k, v in self.flat.items()}, nodes)

    def params(self, index, value=None, column: bool = True) -> list[np.ndarray]:
        """Parameter arrays of the points ``index`` (the continuation variable replaced by ``value``)."""
        rows = np.take(self.table, index, axis=1)                       # a copy, even of a slice
        if value is not None:
            rows[self.compiled.variable_index] = value
        return list(rows[:, :, None] if column else rows)

    def where(self, i: int) -> str:
        """The parameters of point ``i``, for messages."""
        return ", ".join(f"{k}={self.flat[k][i]:.4g}" for k in self.keys)

    def expect(self, integrand, columns: list, weights: np.ndarray) -> np.ndarray:
        r""":math:`\mathbb E_\lambda` of every output of ``integrand(*columns)`` with ``weights`` (N, nodes).

        ``columns`` are arrays of N rows (nodes, or one column for what is constant in
        :math:`\lambda`); ``integrand`` returns a list of arrays (N, nodes), or of smaller
        shape where an output does not depend on :math:`\lambda`. The rows are taken in blocks
        of about CACHE_ELEMENTS point-nodes so that the generated code's temporaries stay in
        the CPU cache (measured 3x faster than whole (10^4, 49) arrays).
        """
        rows = len(weights)
        block = max(1, CACHE_ELEMENTS // weights.shape[1])
        out = None
        for start in range(0, rows, block):
            part = slice(start, start + block)
            integrands = integrand(*(x[part] for x in columns))
            if out is None:
                out = np.empty((len(integrands), rows), dtype=self.dtype)
            w = weights[part]
            for k, values in enumerate(integrands):
                values = np.asarray(values)
                if values.ndim == 2 and values.shape[1] > 1:
                    out[k, part] = np.einsum("nj,nj->n", values, w)
                else:                               # constant in lambda: every rule sums to 1
                    out[k, part] = values[:, 0] if values.ndim == 2 else values
        if out is None:                    # no rows: no point to average at
            raise ValueError("expect: a quadrature rule without nodes")
        return out

    def rule(self, index, coarse: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Nodes and weights of the full rule (or of the embedded coarse rule) for the points ``index``."""
        if coarse:
            return self.lam[index][:, self.coarse_columns], self.coarse[index]
        return self.lam[index], self.weights[index]

    def newton_system(self, t, value, index, coarse: bool = False):
        r"""Residual :math:`F`, its Jacobian in :math:`t` and its total derivative in the continuation variable.

        The averages enter through the chain rule:
        :math:`J = \partial_t F + \partial_\tau F\;\mathbb E[\partial_t g]` and
        :math:`\mathrm dF/\mathrm dv = \partial_v F + \partial_\tau F\;\mathbb E[\partial_v g]`.
        Returns ``(F (U, N), J (N, U, U), dF/dv (U, N))``.
        """
        compiled = self.compiled
        u, n = len(compiled.unknowns), len(index)
        p = compiled.fixed_point_averages_count
        if not p:                       # no averages (an algebraic form): the residuals' own partials
            parts = self._exact_parts(t, value, index)
            return parts[:u], parts[u: u + u * u].reshape(u, u, n).transpose(2, 0, 1), parts[u + u * u:]
        params = self.params(index, value)
        lam, weights = self.rule(index, coarse)
        values = self.expect(lambda lam, *rest: compiled.fixed_point(lam, rest[:u], rest[u:]),
                             [lam, *(x[:, None] for x in t), *params], weights)
        tau, dtau_dt, dtau_dv = values[:p], values[p: p + p * u].reshape(p, u, n), values[p + p * u:]
        flat = [x[:, 0] for x in params]
        parts = stack(compiled.residual(list(t), list(tau), flat), n, self.dtype)
        residual = parts[:u]
        d_t = parts[u: u + u * u].reshape(u, u, n)
        d_tau = parts[u + u * u: u + u * u + u * p].reshape(u, p, n)
        d_v = parts[u + u * u + u * p:]
        jacobian = d_t + np.einsum("upn,pvn->uvn", d_tau, dtau_dt.reshape(p, u, n))
        d_v = d_v + np.einsum("upn,pn->un", d_tau, dtau_dv)
        return residual, jacobian.transpose(2, 0, 1), d_v

    def _exact_parts(self, t, value, index) -> np.ndarray:
        """The residual function of an exact system at the points ``index``, as one (outputs, N) array."""
        compiled = self.compiled
        rows = np.take(self.table, index, axis=1)
        if value is not None:
            rows[compiled.variable_index] = value
        return evaluated(compiled.residual_function, compiled.residual_native, [*t, *rows], len(index), self.dtype)
