r"""``symrmt theory --weights FILE --layer L [--head H]``: the general-M theory of a real model's attention weights.

The layer's (or head's) matrix in symrmt's orientation, key on the left:
:math:`M = W_K^\top W_Q/\sqrt d` (as :mod:`symrmt.weights` holds it; docs/real_weights.md), read
with :func:`symrmt.weights.read_weights`, and :func:`symrmt.attention_error` with ``weights=M``
(docs/theory.md, the general weights section). ``--weights-scale unit`` (the default) rescales M to scores of
unit variance (:math:`\|M\|_F^2 = p`, the convention of the measurements); ``model`` keeps the model's own
:math:`1/\sqrt d`; a number multiplies M. ``--signal top|random`` puts :math:`\mu` (norm ``--mu-norm``,
default 1) along M's top right singular vector or a random direction (seed 0); ``none`` is the default.
"""
from __future__ import annotations

import argparse

import numpy as np

from ... import attention_error, solve_linear
from ...errors import SymrmtInputError, shown
from ...models.cli_hooks import default_attention
from ...weight_matrix import attention_matrix
from ...weights import read_weights
from ..arguments import integer_argument
from ..arguments import GEOMETRY_FLAGS
from ..failures import failed_points, print_failures, settle
from ..output import cell
from ...theory.forms import DEFAULT_FORM

__all__ = ["add_weights_arguments", "weights_theory", "layer_matrix", "refuse_weights_flags", "weights_scale",
           "signal"]


def add_weights_arguments(p: argparse.ArgumentParser) -> None:
    """``--weights``, ``--layer``, ``--head``, ``--weights-scale``, ``--signal`` on ``symrmt theory``."""
    g = p.add_argument_group("a real model's weights (the general-M theory) instead of the geometry")
    g.add_argument("--weights", default=None, metavar="FILE.safetensors",
                   help="a .safetensors file, a zip holding one, or 'minilm'; with --layer")
    g.add_argument("--layer", type=integer_argument, default=None, metavar="L", help="the layer of --weights")
    g.add_argument("--head", type=integer_argument, default=None, metavar="H",
                   help="one head of the layer (default: the whole layer)")
    g.add_argument("--heads", type=integer_argument, default=None, metavar="N",
                   help="number of heads, when no config.json is beside the file")
    g.add_argument("--weights-scale", default="unit", metavar="unit|model|X",
                   help="unit (default): scores of unit variance, ||M||_F^2 = p; model: the model's own 1/sqrt(d); "
                        "a number: that multiple of the model's M")
    g.add_argument("--signal", choices=("none", "top", "random"), default="none",
                   help="mu along M's top right singular vector, a random direction (seed 0), or none (default); "
                        "its norm is --mu-norm (default 1)")


def layer_matrix(source: str, layer: int, head: int | None = None, num_heads: int | None = None,
                 scale: str | float = "unit") -> np.ndarray:
    r"""The ``(p, p)`` matrix :math:`M = W_K^\top W_Q/\sqrt d` of ``layer`` (or one head), key on the left.

    ``scale``: ``"unit"`` rescales to :math:`\|M\|_F^2 = p`, ``"model"`` keeps :math:`1/\sqrt d`, a number
    multiplies the model's M. Raises :class:`~symrmt.errors.SymrmtInputError` for a head out of range or a bad scale.
    """
    w = read_weights(source, layers=[layer], num_heads=num_heads)
    lay = w.layers[0]
    M = attention_matrix(lay.key_weight, lay.query_weight, w.head_dim, head)
    if scale == "unit":
        norm = np.linalg.norm(M)
        return M * (np.sqrt(M.shape[0]) / norm) if norm > 0 else M
    if scale == "model":
        return M
    factor = weights_scale(scale)
    with np.errstate(over="ignore", under="ignore"):
        scaled = factor * M
        norm = np.linalg.norm(scaled) if np.all(np.isfinite(scaled)) else np.inf
    if not (np.isfinite(norm) and norm > 0):
        raise SymrmtInputError(f"--weights-scale {shown(scale)}: the layer's M times {factor:g} "
                               f"{'overflows' if not np.isfinite(norm) else 'underflows to 0 in'} float64; give a "
                               "number nearer 1, or unit.")
    return scaled


def weights_scale(scale: str | float) -> float:
    """The number of ``--weights-scale X`` (finite, > 0), or the one-line refusal naming the flag."""
    try:
        factor = float(scale)
    except (TypeError, ValueError):
        factor = float("nan")
    if not (np.isfinite(factor) and factor > 0):
        raise SymrmtInputError(f"--weights-scale {shown(scale)}: give unit, model or a number > 0.")
    return factor


def weights_theory(args: argparse.Namespace) -> dict:
    """The body of ``symrmt theory --weights``: E_attn of the general-M theory (and E_lin) over ``--gamma``."""
    from ...general.cost import check_general_cost  # heavy: SciPy

    _refuse_others(args)
    if args.layer is None:
        raise SymrmtInputError("--weights needs --layer L (the layer whose W_K^T W_Q is used).")
    if args.f is None:
        raise SymrmtInputError("--weights needs --f EXPR, the nonlinearity (e.g. --f 'tanh(x)').")
    if args.weights_scale not in ("unit", "model"):
        weights_scale(args.weights_scale)                 # refused before the file is read
    c, d = _single(args.c, "--c"), _single(args.diag, "--diag")
    mu_norm = _mu_norm(args)
    M = layer_matrix(args.weights, args.layer, args.head, args.heads, args.weights_scale)
    p = M.shape[0]
    check_general_cost(M, args.gamma, args.allow_long)        # before the SVD of --signal top
    mu = signal(args, M)
    if args.center:
        raise SymrmtInputError("--center with --weights: centre f at the score scale yourself (with --weights-scale "
                               "unit the scale is 1, so --f 'relu(x) - 1/sqrt(2*pi)' is the centred ReLU).")
    f = args.f
    attention = attention_error(f, c, args.gamma, d=d, weights=M, mu=mu, allow_long=args.allow_long)
    theta = 0.0 if mu is None else float(mu @ mu)
    solved = solve_linear(c, args.gamma, gram=np.diag([theta, 0.0, 0.0]), partial=True)
    linear = solved.error
    failed = failed_points(solved.failures, [("gamma", args.gamma)], "linear")
    settle(failed, 2 * np.size(args.gamma), args.strict)          # general M itself is all or nothing
    label = f"layer {args.layer}" + ("" if args.head is None else f", head {args.head}")
    out = {"weights": str(args.weights), "layer": args.layer, "head": args.head, "p": p, "c": c, "f": args.f,
           "signal": args.signal, "mu_norm": mu_norm if mu is not None else 0.0, "weights_scale": str(args.weights_scale),
           "sigma": float(np.linalg.norm(M) / np.sqrt(p)), "gamma": args.gamma.tolist(),
           "attention": np.asarray(attention).tolist(), "linear": linear.tolist(), "failed": failed}
    if not args.json:
        print(f"f = {args.f}, {label} of {args.weights}: M = W_K^T W_Q/sqrt(d), p = {p}, "
              f"||M||_F/sqrt(p) = {out['sigma']:.4g}, c = {c:g}, signal {args.signal}")
        print(f"{'gamma':>10} {'E_attn':>10} {'E_lin':>10}")
        for g, a, l in zip(args.gamma, np.ravel(attention), np.ma.filled(linear, np.nan)):
            print(f"{g:10.4g} {cell(a, 10)} {cell(l, 10)}")
        print_failures(failed)
    return out


def _mu_norm(args: argparse.Namespace) -> float:
    """``--mu-norm`` (default 1) of ``--signal top|random``: refused without a signal, or below 0."""
    mu_norm = 1.0 if args.mu_norm is None else _single(args.mu_norm, "--mu-norm")
    if args.mu_norm is not None and args.signal == "none":
        raise SymrmtInputError("--mu-norm is the norm of the signal of --signal top|random; without --signal there is "
                               "none: give --signal, or leave --mu-norm out.")
    if not (np.isfinite(mu_norm) and mu_norm >= 0):
        raise SymrmtInputError(f"--mu-norm {mu_norm:g}: the norm of the signal must be a finite number >= 0.")
    return mu_norm


def signal(args: argparse.Namespace, M: np.ndarray) -> np.ndarray | None:
    """The signal vector of ``--signal`` (``top``: M's top right singular vector; ``random``: seed 0) with norm
    ``--mu-norm``, or None for ``--signal none``."""
    mu_norm = _mu_norm(args)
    if args.signal == "top":
        return mu_norm * np.linalg.svd(M)[2][0]
    if args.signal == "random":
        u = np.random.default_rng(0).standard_normal(M.shape[0])
        return mu_norm * u / np.linalg.norm(u)
    return None


def refuse_weights_flags(args: argparse.Namespace, others: tuple[str, ...] = ("--heads",)) -> None:
    """Without --weights, its flags would be ignored in silence: one line naming those given (``others``: the flags
    that belong to --weights here, beside --layer, --head, --weights-scale and --signal)."""
    flags = (("--layer", args.layer is not None), ("--head", args.head is not None),
             ("--heads", "--heads" in others and args.heads is not None),
             ("--weights-scale", args.weights_scale != "unit"), ("--signal", args.signal != "none"))
    given = [flag for flag, on in flags if on] if args.weights is None else []
    if given:
        raise SymrmtInputError(f"{', '.join(given)} {'apply' if len(given) > 1 else 'applies'} only to --weights "
                               "FILE (a real model's layer); give --weights, or leave them out.")


def _refuse_others(args: argparse.Namespace) -> None:
    """One line naming every flag that --weights cannot take."""
    bad = [("--" + name.replace("_", "-")) for name in GEOMETRY_FLAGS[1:] if getattr(args, name, None) is not None]
    bad += [flag for flag, on in (("--gram", args.gram is not None), ("--geometry", args.preset is not None),
                                  ("--w-norm", args.w_norm is not None), ("--param", bool(args.param)),
                                  (f"--attention {args.attention}", args.attention != default_attention()),
                                  ("--temperature", args.temperature is not None),
                                  ("--form", args.form != DEFAULT_FORM),
                                  ("--rank", getattr(args, "rank", None) is not None),
                                  ("--csv", args.csv is not None)) if on]
    if bad:
        raise SymrmtInputError(f"--weights cannot be combined with {', '.join(bad)}: the weights replace the geometry "
                               "(and general M is solved numerically, in no form, with no compile cost); give the "
                               "signal with --signal and --mu-norm.")


def _single(value, flag: str) -> float:
    arr = np.ravel(np.asarray(value, dtype=float))
    if arr.size != 1:
        raise SymrmtInputError(f"{flag} takes one value with --weights (one matrix fixes p = c*n): run once per value.")
    return float(arr[0])

