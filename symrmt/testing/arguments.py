"""The argument checks of symrmt.testing's strategies, and the deprecation of symrmt 0.1's calling style.

In Hypothesis' convention: an :class:`hypothesis.errors.InvalidArgument` naming the argument, when the strategy is
made; the 0.1 style (positional arguments, old keyword names) is accepted for one release with a
:class:`DeprecationWarning`."""
from __future__ import annotations

import functools
import math
import warnings
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

__all__ = ["real", "interval", "whole", "strategy", "deprecated", "pair"]

def real(function: str, name: str, value: Any, *, positive: bool = False) -> float:
    """``value`` as a finite float, else :class:`hypothesis.errors.InvalidArgument` naming the argument."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating, Fraction)):
        raise InvalidArgument(f"{function}({name}={value!r}): {name} must be a real number.")
    number = float(value)
    if not math.isfinite(number) or (positive and number <= 0):
        raise InvalidArgument(f"{function}({name}={value!r}): {name} must be a finite number"
                              + (" > 0 (the scale is logarithmic)." if positive else "."))
    return number


def interval(function: str, low_name: str, low: Any, high_name: str, high: Any, *,
              positive: bool = False, within: tuple[float, float] | None = None) -> tuple[float, float]:
    """Checked bounds ``low <= high`` (and inside ``within``), else InvalidArgument naming both."""
    lo, hi = real(function, low_name, low, positive=positive), real(function, high_name, high, positive=positive)
    if lo > hi:
        raise InvalidArgument(f"{function}({low_name}={low!r}, {high_name}={high!r}): {low_name} must be at most "
                              f"{high_name}.")
    if within is not None and not (within[0] <= lo and hi <= within[1]):
        raise InvalidArgument(f"{function}({low_name}={low!r}, {high_name}={high!r}): both must lie in "
                              f"[{within[0]:g}, {within[1]:g}].")
    return lo, hi


def whole(function: str, name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidArgument(f"{function}({name}={value!r}): {name} must be a whole number in {low}..{high}.")
    return int(value)


def strategy(function: str, name: str, value: Any) -> st.SearchStrategy | None:
    """None or a strategy; a plain value is refused with the strategy that draws it."""
    if value is None or isinstance(value, st.SearchStrategy):
        return value
    raise InvalidArgument(f"{function}({name}={value!r}): {name} takes a strategy, e.g. {name}=st.just({value!r}).")


def deprecated(positional: tuple[str, ...] = (), renamed: Mapping[str, Callable[[Any], dict]] | None = None):
    """Accept the calling style of symrmt 0.1 (positional arguments, old keyword names) for one release.

    Each old use warns once per call site with a :class:`DeprecationWarning` that names the new keyword; the
    old styles will be removed in symrmt 0.3.
    """
    renamed = dict(renamed or {})

    def decorate(function: Callable) -> Callable:
        name = function.__name__

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if len(args) > len(positional):
                raise InvalidArgument(f"{name}() takes keyword arguments only, e.g. "
                                      f"{name}({', '.join(f'{k}=...' for k in positional) or ''}).")
            if args:
                warnings.warn(f"{name}() with positional arguments is deprecated (removed in symrmt 0.3): write "
                              f"{name}({', '.join(f'{k}=...' for k in positional[:len(args)])}).",
                              DeprecationWarning, stacklevel=2)
            for key, value in zip(positional, args):
                if key in kwargs:
                    raise InvalidArgument(f"{name}(): {key} given twice (by position and by keyword).")
                kwargs[key] = value
            for old in [k for k in kwargs if k in renamed]:
                new = renamed[old](kwargs.pop(old))
                warnings.warn(f"{name}({old}=...) is deprecated (removed in symrmt 0.3): write "
                              f"{name}({', '.join(f'{k}=...' for k in new)}).", DeprecationWarning, stacklevel=2)
                clash = set(new) & set(kwargs)
                if clash:
                    raise InvalidArgument(f"{name}(): {old}= and {', '.join(sorted(clash))}= both given.")
                kwargs.update(new)
            return function(**kwargs)

        return wrapper

    return decorate


def pair(old: str, low: str, high: str) -> Callable[[Any], dict]:
    """An old ``name=(lo, hi)`` argument as the new ``low=lo, high=hi``."""
    def split(value):
        if not (isinstance(value, (tuple, list)) and len(value) == 2):
            raise InvalidArgument(f"{old}={value!r}: the deprecated form is a pair (lo, hi); write {low}=, {high}=.")
        return {low: value[0], high: value[1]}
    return split
