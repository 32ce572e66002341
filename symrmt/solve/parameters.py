r"""A system's parameters, checked once: real, inside the system's domains, broadcast and flattened.

:func:`check_parameters` is the one place where the arrays a solver is given are checked: against the
system's parameter keys, against each parameter's domain (the interval the derivation states, practical
bounds included), and for broadcasting. It returns :class:`Parameters`, which :func:`symrmt.solve.solve`
trusts without checking again. The keys are opaque to this module (the systems' SymPy symbols).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import ParameterError, ParameterTypeError
from ..runtime.memory import check_fits
from ..validate import inside, real_array

__all__ = ["Parameters", "check_parameters", "Domain", "POINT_BYTES"]

#: Peak bytes per broadcast point of a solve, an upper bound of the measured peaks (tracemalloc, 4.3 to 6.6 KB
#: per point over the built-in systems at 1e4 to 4e4 points, docs/performance.md): a grid is refused before
#: its arrays are broadcast when this many bytes per point do not fit.
POINT_BYTES = 8192

#: ``(lower, upper, lower_open, upper_open)``: an interval of the real line.
Domain = tuple[float, float, bool, bool]


@dataclass(frozen=True, eq=False)
class Parameters:
    """Parameter arrays keyed by symbol, checked and flattened: every ``flat[k]`` has ``size`` float64 entries.

    Made by :func:`check_parameters` (or :meth:`subset` of one), never by hand: a solver reads it without
    checking again. ``shape`` is the broadcast shape of the arrays as given; the flat order is C order.

    Examples
    --------
    >>> parameters = check_parameters(("u", "v"), {"u": (0, 10, True, False), "v": (0, np.inf, True, True)},
    ...                               {"u": 1.0, "v": [0.1, 1.0, 10.0]})
    >>> parameters.shape, parameters.size, list(parameters.flat)
    ((3,), 3, ['u', 'v'])
    """

    flat: Mapping[Any, np.ndarray]
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def keys(self):
        return self.flat.keys()

    def __getitem__(self, key) -> np.ndarray:
        return self.flat[key]

    def __contains__(self, key) -> bool:
        return key in self.flat

    def subset(self, keep: np.ndarray, drop: tuple = ()) -> Parameters:
        """The points ``keep`` (a mask, indices or a slice of the flat order), as a flat set, without the keys ``drop``.

        A mask of the wrong length or an index outside the points is refused in one line (a
        :class:`~symrmt.errors.ParameterError`), not an ``IndexError``.
        """
        if isinstance(keep, slice):
            values = {k: v[keep] for k, v in self.flat.items() if k not in drop}
            return Parameters(values, (len(range(*keep.indices(self.size))),))
        keep = np.asarray(keep)
        if keep.dtype == bool:
            if keep.shape != (self.size,):
                raise ParameterError(f"subset: a mask of shape {keep.shape} for {self.size} points; give one entry "
                                     "per point of the flat order.")
            count = int(keep.sum())
        elif keep.dtype.kind in "iu" and keep.ndim <= 1:
            keep = np.atleast_1d(keep)
            if keep.size and (keep.min() < 0 or keep.max() >= self.size):
                raise ParameterError(f"subset: indices {keep[(keep < 0) | (keep >= self.size)][:5].tolist()} are "
                                     f"outside the {self.size} points (0..{self.size - 1}).")
            count = keep.size
        else:
            raise ParameterTypeError(f"subset: keep must be a boolean mask or integer indices, not {keep.dtype} of "
                                     f"shape {keep.shape}.")
        values = {k: v[keep] for k, v in self.flat.items() if k not in drop}
        return Parameters(values, (count,))


def check_parameters(keys: tuple, domains: Mapping[Any, Domain], params: Mapping, hint: str = "",
                     sources: Mapping[Any, str] | None = None) -> Parameters:
    """The :class:`Parameters` of ``params``: exactly one array per key, real, inside its domain, broadcasting.

    ``domains`` maps each key to ``(lower, upper, lower_open, upper_open)``; a value outside (or not
    finite) is refused by a :class:`~symrmt.errors.ParameterError` that names the key, the values and the
    interval, followed by ``hint``. ``sources`` names the user's argument behind a key, where it is not the
    key itself (a Gram entry comes from ``gram``), in the message of shapes that do not broadcast.

    Parameters
    ----------
    keys : tuple
        The parameter keys (a system's symbols, or names), in order.
    domains : mapping
        Key -> ``(lower, upper, lower_open, upper_open)``, e.g. ``(0, 1e12, True, False)`` for a key whose values lie in (0, 10^12].
    params : mapping
        Key -> a number or an array of numbers; exactly the keys of ``keys``.
    hint : str
        Appended to the message of a value outside its domain (e.g. how to choose it).
    sources : mapping, optional
        Key -> the name of the user's argument behind it, for the message of shapes that do not broadcast.

    Returns
    -------
    Parameters
        The values broadcast together and flattened (``.flat``), with the broadcast ``shape``.

    Raises
    ------
    ParameterError
        A missing or unknown key, a value that is not real (:class:`~symrmt.errors.ParameterTypeError`), empty,
        not finite or outside its domain, shapes that do not broadcast, or a grid too large for the memory
        available.

    See Also
    --------
    symrmt.validate.inside : The check of one array against its domain.
    symrmt.codegen.parameter_domains : A system's domains, in this form.

    Examples
    --------
    >>> p = check_parameters(("u", "v"), {"u": (0, 10, True, False), "v": (0, np.inf, True, True)},
    ...                      {"u": 1.0, "v": [0.1, 1.0]})
    >>> p.shape, p["u"].tolist()
    ((2,), [1.0, 1.0])
    >>> check_parameters(("u",), {"u": (0, 10, True, False)}, {"u": [1.0, 20.0]})
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: u contains [20.0]: every value must be in (0, 10].
    """
    known = set(keys)                   # hashed look-ups: symbols compare slowly one by one
    missing = [str(k) for k in keys if k not in params]
    unknown = [repr(k) for k in params if k not in known]
    if missing or unknown:
        raise ParameterError(f"the system takes one array per parameter symbol {[str(k) for k in keys]}; "
                             + (f"missing {missing}" if missing else "") + ("; " if missing and unknown else "")
                             + (f"unknown {unknown}" if unknown else "") + ".")
    arrays = {k: _inside(str(k), real_array(str(k), params[k], finite=False), domains[k], hint) for k in keys}
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = {(sources or {}).get(k, str(k)): a.shape for k, a in arrays.items()}
        listed = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ParameterError(f"the shapes of {listed} do not broadcast together (NumPy rules): give arrays "
                             "whose shapes broadcast, e.g. one axis per swept input.") from None
    points = int(np.prod(shape, dtype=float)) if shape else 1
    if points > 1:
        swept = ", ".join(f"{(sources or {}).get(k, str(k))} {a.shape}" for k, a in arrays.items() if a.ndim)
        check_fits(float(points) * POINT_BYTES, f"the grid of {swept} broadcasts to {points:.3g} points {shape}, which",
                   "Solve fewer points, or the grid in pieces.")
    return Parameters({k: np.broadcast_to(a, shape).ravel().copy() for k, a in arrays.items()}, shape)


def _inside(name: str, array: np.ndarray, domain: Domain, hint: str) -> np.ndarray:
    """``array`` if every entry is finite and in ``domain``: the one check of :func:`symrmt.validate.inside`."""
    return inside(name, array, domain, hint)
