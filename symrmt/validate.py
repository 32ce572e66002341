"""Checks of numeric user input, one per kind of argument (NumPy only).

Each validator returns the value in its canonical form (``float``, ``int``, a float64 array
or the chosen name) or raises a :class:`~symrmt.errors.ParameterError` whose one line names
the argument, the value and what is expected. All of them refuse booleans, text, complex
numbers, ``None``, empty arrays and non-finite values: ``c="1"`` is an error, not 1.0.
``hint`` (optional) is appended to the message: the fix in the caller's terms.
"""
from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Sequence as SequenceType
from typing import Any, Sequence

import numpy as np

from .errors import ParameterError, ParameterTypeError, shown

__all__ = ["MIN_TEMPERATURE", "DEFAULT_TEMPERATURE", "temperature", "heads", "beyond_gamma", "MAX_SEED", "integer_text", "seed", "seed_count", "index", "distinct_indices",
           "MAX_GRID_POINTS", "C_RANGE", "MAX_GAMMA", "MAX_DIAGONAL", "RANGE_HINT", "DOMAINS", "inside", "in_range", "real_scalar", "positive_scalar",
           "integer", "real_array", "positive_array",
           "positive_grid", "choice", "within", "indices", "grid", "GRID_GRAMMAR", "GridSpacingWarning", "TWO_SEEDS"]

#: Most values in one grid given by its size (``LO:HI:NUM`` on the command line, a sweep's γ grid, seeds
#: and points): large enough for any figure or study, small enough that a typo (1e9) is refused before
#: anything is allocated instead of ending in MemoryError.
MAX_GRID_POINTS = 100_000

# The ranges of the model's parameters where the theory is solved and checked on grids (docs/theory.md,
# section 13). The theory, the spectra, the simulator and sweeps read c, gamma and d through them, so that
# they accept and refuse the same values (norms are bounded by symrmt.geometry.MAX_NORM).

#: c = p/n: the solver is checked on grids from 1e-8 to 1e8 (only tiny gamma fail near the top, and are
#: reported); beyond 1e6 one side of X would have a million times the other, and nothing is simulated.
C_RANGE = (1e-6, 1e6)
#: The largest ridge: E = 1 - 2 m_1/gamma + ..., with m_1 the mean eigenvalue of K^T C K (up to about 1e5 for
#: norms and d of order one). Beyond 1e12, gamma against the pencil's O(1) entries spends every digit of
#: float64; below it a point where round-off still fails the branch checks (gamma c above about 1e10) is
#: reported as failed, never returned.
MAX_GAMMA = 1e12
#: The largest |d| = |K_ii|: K is then d I up to a relative 10^-2, and E(gamma) close to that of d^2 C,
#: which the quadrature resolves only for gamma above about 10^-6 d^2 (10^-2 at d = 100).
MAX_DIAGONAL = 100.0
#: What a refusal by these ranges adds.
RANGE_HINT = "(the range where the theory is solved and checked: docs/theory.md, section 13)"
#: The ranges above as the intervals every reader checks c, gamma and d against, ``(lower, upper, lower_open,
#: upper_open)``: the derivation's domains (:func:`symrmt.derive.symbols.domain`), the Monte Carlo, the sweep specs.
DOMAINS = {"c": (C_RANGE[0], C_RANGE[1], False, False), "gamma": (0.0, MAX_GAMMA, True, False),
           "d": (-MAX_DIAGONAL, MAX_DIAGONAL, False, False)}
#: Why a Monte Carlo takes at least two seeds: every mean it reports carries a 95% Student-t interval.
TWO_SEEDS = "a t interval needs at least 2 seeds: its standard error and t quantile have seeds - 1 degrees of freedom"


def _refuse(name: str, value: Any, expected: str, hint: str, subject: str | None = None,
            kind: type[ParameterError] = ParameterError) -> ParameterError:
    """The one-line error: ``"<name> = <value>: <expected>. <hint>"`` (``subject`` replaces ``name = value``; the
    value quoted by :func:`symrmt.errors.shown`, so that a long input stays one short line); ``kind``
    :class:`~symrmt.errors.ParameterTypeError` for a wrong type."""
    return kind(f"{subject or f'{name} = {shown(value)}'}: {expected}." + (f" {hint}" if hint else ""))


def real_array(name: str, value: Any, finite: bool = True, hint: str = "") -> np.ndarray:
    """``value`` as a non-empty float64 array (finite unless ``finite=False``).

    Examples
    --------
    >>> real_array("x", [1, 2.5]).tolist()
    [1.0, 2.5]
    >>> real_array("x", "1")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterTypeError: x = '1': must be a real number or an array of real numbers.
    """
    if np.ma.isMaskedArray(value) and np.ma.getmaskarray(value).any():   # np.asarray would use the hidden values
        raise _refuse(name, value, "has masked entries, which would be computed with their hidden values: give "
                      "the entries to use (value.compressed()) or fill them (value.filled(v))", hint)
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - ragged lists and the like
        raise _refuse(name, value, "must be a real number or an array of real numbers", hint) from None
    if array.dtype.kind == "c":
        raise _refuse(name, value, "must be real, not complex", hint, kind=ParameterTypeError)
    if array.dtype.kind not in "iuf":          # bool, text, None, objects
        raise _refuse(name, value, "must be a real number or an array of real numbers", hint, kind=ParameterTypeError)
    if array.size == 0:
        raise _refuse(name, value, "must be non-empty", hint)
    array = array.astype(np.float64)
    if finite and not np.all(np.isfinite(array)):
        raise _refuse(name, value, "must be finite", hint)
    return array


def real_scalar(name: str, value: Any, hint: str = "") -> float:
    """``value`` as a finite ``float``: a real number (Python, NumPy, ``fractions.Fraction``), not an array."""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        try:
            number = float(value)
        except OverflowError:              # an int beyond float64, e.g. 10**400
            raise _refuse(name, value, "must be finite", hint) from None
    else:
        array = real_array(name, value, finite=False, hint=hint)
        if array.ndim != 0:
            raise _refuse(name, value, "must be a single real number", hint)
        number = float(array)
    if not np.isfinite(number):
        raise _refuse(name, value, "must be finite", hint)
    return number


def positive_scalar(name: str, value: Any, hint: str = "") -> float:
    """``value`` as a finite ``float`` > 0."""
    number = real_scalar(name, value, hint)
    if not number > 0:
        raise _refuse(name, number, "must be > 0", hint)
    return number


def integer(name: str, value: Any, minimum: int, hint: str = "") -> int:
    """``value`` as an ``int`` >= ``minimum`` (Python or NumPy integers; not 2.0, not True)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _refuse(name, value, f"must be an integer >= {minimum}", hint, kind=ParameterTypeError)
    if value < minimum:
        raise _refuse(name, value, f"must be >= {minimum}", hint)
    return int(value)


#: An integer as the command line takes it: digits with an optional '-', no leading zeros, signs '+',
#: blanks or '_' (which Python's int() accepts), so that "0" and "00" are never two spellings of one layer.
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")
#: Python converts at most this many digits to an int (sys.get_int_max_str_digits()).
_INT_DIGITS = 4300


def integer_text(text: str) -> int:
    """An integer flag's text as an ``int``, spelled plainly (``7``, ``-1``; not ``07``, ``+7``, ``7.0``, ``1_000``).

    An integer of more digits than Python converts (4300) is refused here; any other is returned, for the
    library's reader of the argument to check against its range.

    The one reading of an integer flag (``--seed``, ``--layer``, ``--n``, ...); the value is then checked by the
    library's reader of that argument.

    >>> integer_text("-1"), integer_text("0")
    (-1, 0)
    >>> integer_text("00")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: '00' is not an integer written plainly: digits with an optional leading '-' and no leading zeros, e.g. 0.
    """
    if not _INTEGER.fullmatch(text):
        plain = re.sub(r"^([+-]?)0*(?=\d)", lambda m: m.group(1).replace("+", ""), text.strip().replace("_", ""))
        plain = "0" if plain == "-0" else plain
        example = plain if _INTEGER.fullmatch(plain) and len(plain) <= 20 else "7"
        raise ParameterError(f"{shown(text)} is not an integer written plainly: digits with an optional leading "
                             f"'-' and no leading zeros, e.g. {example}.")
    digits = len(text.lstrip("-"))
    if digits > _INT_DIGITS:            # int() would refuse it; no count, index or seed of symrmt is that long
        raise ParameterError(f"{shown(text)}: an integer of {digits} digits, beyond any number symrmt takes "
                             "(sizes, counts, indices, seeds).")
    return int(text)


#: The largest root seed. NumPy's ``SeedSequence`` takes any integer >= 0, but a seed is written to JSON and
#: CSV and read back as a 64-bit integer (never as a wrapped negative number).
MAX_SEED = 2**63 - 1


def seed(value: Any, name: str = "seed") -> int:
    """``value`` as a root seed: an integer in 0..:data:`MAX_SEED` (``np.random.SeedSequence(seed)``).

    The one reader of root seeds: the simulator, ``converge``, the figures and the command line's ``--seed``.

    >>> seed(7)
    7
    >>> seed(-1)
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: seed = -1: must be an integer in 0..2**63-1 (the root of NumPy's SeedSequence). Use a non-negative integer seed.
    """
    hint = "Use a non-negative integer seed."
    expected = "must be an integer in 0..2**63-1 (the root of NumPy's SeedSequence)"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _refuse(name, value, expected, hint, kind=ParameterTypeError)
    if not 0 <= value <= MAX_SEED:
        raise _refuse(name, value, expected, hint)
    return int(value)


def seed_count(value: Any, minimum: int, name: str = "seeds", hint: str = "") -> int:
    """``value`` as a number of seeds: an integer in ``minimum``..:data:`MAX_GRID_POINTS` (the bound of a sweep's
    seeds and of every grid given by its size).

    >>> seed_count(2**70, 2)
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: seeds = 1180591620717411303424: must be an integer in 2..100000.
    """
    expected = f"must be an integer in {minimum}..{MAX_GRID_POINTS}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _refuse(name, value, expected, hint, kind=ParameterTypeError)
    if not minimum <= value <= MAX_GRID_POINTS:
        raise _refuse(name, value, expected, hint)
    return int(value)


def index(name: str, value: Any, count: int, owner: str) -> int:
    """``value`` as one of ``count`` indices 0..count-1 (a layer of a file, a head of a model); the refusal names
    the count: ``layer 7: the file has 6 layers (0-5).``

    >>> index("head", -1, 12, "the model")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: head -1: the model has 12 heads (0-11).
    """
    plural = f"{count} {name}{'' if count == 1 else 's'}"
    held = f"{owner} has {plural}" + (f" (0-{count - 1})" if count > 1 else " (0)" if count == 1 else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ParameterTypeError(f"{name} {shown(value)}: must be an integer; {held}.")
    if not 0 <= value < count:
        raise ParameterError(f"{name} {shown(value)}: {held}.")
    return int(value)


def distinct_indices(name: str, values: Any, count: int, owner: str) -> list[int]:
    """A list of :func:`index` values, each given once (``layers=[0, 0]`` is refused, not merged).

    >>> distinct_indices("layer", [1, 1], 6, "the file")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: layer 1 is given twice; give each layer once.
    """
    if isinstance(values, (int, np.integer)) and not isinstance(values, (bool, np.bool_)):
        values = [values]
    if isinstance(values, (str, bytes)) or not isinstance(values, (SequenceType, np.ndarray)):
        raise ParameterTypeError(f"{name}s = {shown(values)}: must be a list of integers, e.g. [0, 1].")
    chosen = [index(name, value, count, owner) for value in np.ravel(np.asarray(values, dtype=object))]
    for position, value in enumerate(chosen):
        if value in chosen[:position]:
            raise ParameterError(f"{name} {value} is given twice; give each {name} once.")
    return chosen


def positive_array(name: str, value: Any, hint: str = "") -> np.ndarray:
    """``value`` as a non-empty float64 array of finite entries > 0."""
    array = real_array(name, value, hint=hint)
    if np.any(array <= 0):
        raise _refuse(name, value, "every value must be > 0", hint)
    return array


def positive_grid(name: str, value: Any, hint: str = "") -> np.ndarray:
    """``value`` as a 1-d, non-empty float64 array of finite entries > 0 (a number gives one entry).

    Examples
    --------
    >>> positive_grid("gamma", 0.1).tolist()
    [0.1]
    >>> positive_grid("gamma", [0.1, 0.0])
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: gamma contains [0.0]: every value must be finite and > 0.
    """
    array = np.atleast_1d(real_array(name, value, finite=False, hint=hint))
    if array.ndim != 1:
        raise _refuse(name, value, "give a number or a non-empty 1-d list", hint, f"{name} has shape {array.shape}")
    bad = ~np.isfinite(array) | (array <= 0)
    if bad.any():
        raise _refuse(name, value, "every value must be finite and > 0", hint,
                      f"{name} contains {array[bad][:5].tolist()}")
    return array


def boolean(name: str, value: Any) -> bool:
    """``value`` as a bool if it is ``True`` or ``False`` (a NumPy bool too); anything else is refused, since
    ``nan``, ``"no"`` or an array would otherwise be read by its truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise _refuse(name, value, "must be True or False", "", kind=ParameterTypeError)
    return bool(value)


def choice(name: str, value: Any, names: Sequence[str], hint: str = "") -> str:
    """``value`` if it is one of ``names`` (exactly, as a string)."""
    if not isinstance(value, str) or value not in names:
        raise _refuse(name, value, f"must be one of {', '.join(map(repr, names))}", hint,
                      kind=ParameterError if isinstance(value, str) else ParameterTypeError)
    return value


def inside(name: str, array: np.ndarray, domain: tuple[float, float, bool, bool], hint: str = "") -> np.ndarray:
    """``array`` (read by a reader above) if every entry is finite and in ``domain`` ``(lower, upper, lower_open,
    upper_open)``; else the one-line refusal naming ``name``, the values and the interval, then ``hint``.

    >>> inside("gamma", np.array(2e12), DOMAINS["gamma"])
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: gamma = 2e+12: must be in (0, 1e+12].
    """
    lower, upper, lower_open, upper_open = domain
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(array) | (array < lower) | (array > upper)
        bad |= (array == lower) if lower_open else False
        bad |= (array == upper) if upper_open else False
    if np.any(bad):
        interval = f"{'(' if lower_open else '['}{lower:g}, {upper:g}{')' if upper_open else ']'}"
        subject = f"{name} = {float(array):g}" if array.ndim == 0 else f"{name} contains {array[bad][:5].tolist()}"
        expected = "must be" if array.ndim == 0 else "every value must be"
        raise ParameterError(f"{subject}: {expected} in {interval}." + (f" {hint}" if hint else ""))
    return array


def in_range(name: str, value: Any, hint: str = RANGE_HINT) -> np.ndarray:
    """``value`` (``"c"``, ``"gamma"`` or ``"d"``, read by :func:`real_array`) inside its interval of :data:`DOMAINS`.

    >>> in_range("c", [0.5, 2.0]).tolist()
    [0.5, 2.0]
    """
    return inside(name, real_array(name, value), DOMAINS[name], hint)


def within(name: str, value: Any, lower: float, upper: float, hint: str = "") -> Any:
    """``value`` (a number or array already read by a validator above) if every entry lies in ``[lower, upper]``.

    Examples
    --------
    >>> within("c", 2.0, 1e-4, 1e4)
    2.0
    >>> within("c", [1.0, 1e300], 1e-4, 1e4, "the theory is solved there")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: c contains [1e+300]: every value must be in [0.0001, 10000]. the theory is solved there
    """
    try:
        array = np.asarray(value, dtype=float)
    except OverflowError:                  # an int beyond float64 (an integer() kind): out of any range
        array = np.asarray(np.inf if value > 0 else -np.inf)
    bad = (array < lower) | (array > upper)
    if np.any(bad):
        quoted = value if isinstance(value, (int, float)) else float(array) if array.ndim == 0 else None
        subject = f"{name} = {shown(quoted)}" if array.ndim == 0 else f"{name} contains {array[bad][:5].tolist()}"
        raise _refuse(name, value, f"{'must be' if array.ndim == 0 else 'every value must be'} in "
                      f"[{lower:g}, {upper:g}]", hint, subject)
    return value


def indices(name: str, value: Any, hint: str = "") -> list[int]:
    """``value`` as a list of integers >= 0 (layer or head indices; one integer gives one index).

    >>> indices("layers", (0, 2))
    [0, 2]
    >>> indices("layers", ["1"])
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterTypeError: layers = '1': must be an integer >= 0.
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        value = [value]
    if isinstance(value, (str, bytes)) or not isinstance(value, (SequenceType, np.ndarray)):
        raise _refuse(name, value, "must be a list of integers >= 0, e.g. [0, 1]", hint, kind=ParameterTypeError)
    return [integer(name, item, 0, hint) for item in np.ravel(np.asarray(value, dtype=object))]


#: The smallest temperature accepted: below it :math:`\nu = e^{2/\tau^2}` overflows float64 (2/τ² > 700).
MIN_TEMPERATURE = 0.054


#: The temperature a caller that gives none (None) gets, in the theory and the Monte Carlo alike.
DEFAULT_TEMPERATURE = 1.0


def temperature(temperature: Any = None, array: bool = False) -> Any:
    r"""``temperature`` as a float (an array with ``array``), finite and at least :data:`MIN_TEMPERATURE`.

    The one reader of the softmax temperature, for the theory, the Monte Carlo and the command line alike: None is
    :data:`DEFAULT_TEMPERATURE`, and a single number is refused in the same line whichever of them reads it (an array
    of several, entry by entry).

    >>> temperature(0)
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: temperature = 0.0: must be > 0. The softmax temperature tau divides the scores: exp(S/tau).
    """
    hint = "The softmax temperature tau divides the scores: exp(S/tau)."
    temperature = DEFAULT_TEMPERATURE if temperature is None else temperature
    value: Any
    if np.ndim(temperature) == 0 and not np.ma.isMaskedArray(temperature):
        number = positive_scalar("temperature", temperature, hint)
        value = np.asarray(number) if array else number
    elif array:
        value = positive_array("temperature", temperature, hint)
    else:
        value = positive_scalar("temperature", temperature, hint)
    if np.any(np.asarray(value) < MIN_TEMPERATURE):
        raise ParameterError(
            f"temperature = {temperature!r}: must be >= {MIN_TEMPERATURE} (below it e^(2/tau^2), the variance of "
            "exp(xi/tau), overflows float64; the entrywise equivalent fails long before: docs/theory.md, section 15).")
    return value


def heads(value: Any, pairs: int | None = None) -> int:
    """The number of heads H, the one reader of the theory and the Monte Carlo alike: an integer >= 1 and, given the
    number of weight pairs of the heads' Gram matrix, a divisor of it (each head owns the same number r of pairs).

    >>> heads(2, pairs=4)
    2
    >>> heads(3, pairs=4)
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: heads = 3: the Gram matrix has 4 weight pairs, not a multiple of 3 (each head owns the same number r of pairs).
    """
    count = integer("heads", value, 1, "Give the number of heads H >= 1.")
    if pairs is not None and pairs % count:
        raise ParameterError(f"heads = {count}: the Gram matrix has {pairs} weight pairs, not a multiple of {count} "
                             "(each head owns the same number r of pairs).")
    return count


def beyond_gamma(ridge: np.ndarray) -> np.ndarray:
    """Where a ridge computed from the user's arguments (softmax's gamma/a_1^2) leaves gamma's domain above
    (:data:`MAX_GAMMA`, or not a number): the one comparison with the bound outside :func:`inside`, for a caller that
    words the refusal in its own arguments.

    >>> beyond_gamma(np.array([1.0, 2 * MAX_GAMMA, np.inf])).tolist()
    [False, True, True]
    """
    with np.errstate(invalid="ignore"):
        return ~(np.asarray(ridge, dtype=float) <= DOMAINS["gamma"][1])


#: The grid grammar, stated once: what ``--help``, the messages and docs/usage.md say.
GRID_GRAMMAR = "LO:HI:NUM (NUM evenly spaced values) or LO:HI:NUMlog (NUM log-spaced values, LO and HI > 0)"


class GridSpacingWarning(FutureWarning):
    """A gamma grid written ``LO:HI:NUM``, read log-spaced as before this release; write ``LO:HI:NUMlog``.

    Every other axis reads ``LO:HI:NUM`` as evenly spaced; gamma's plain form will too, one release from now.
    """


def grid(text: str, subject: str = "", expected: str = f"give {GRID_GRAMMAR}",
         plain_log: bool = False) -> np.ndarray:
    """``"LO:HI:NUM"`` as NUM evenly spaced values, ``"LO:HI:NUMlog"`` as NUM log-spaced ones (then LO, HI > 0).

    The one reading of the grid grammar (:data:`GRID_GRAMMAR`), the same on every axis, for the command line
    (``--gamma``, ``--c``, ``--x``, ``--param``, ...) and sweep specs. ``plain_log`` is gamma's old reading:
    ``LO:HI:NUM`` is still log-spaced there, with a :class:`GridSpacingWarning` that says to write
    ``LO:HI:NUMlog``. NUM is checked (1..:data:`MAX_GRID_POINTS`) before anything is allocated. A text not of
    this form is refused with ``"<subject>: <expected> (<what is wrong>)"``, a value out of range with
    ``"<subject>: <what is wrong>"`` (a :class:`ParameterError`).

    >>> grid("1e-2:1:3log").tolist()
    [0.01, 0.1, 1.0]
    >>> grid("-1:1:3").tolist()
    [-1.0, 0.0, 1.0]
    >>> grid("1:2", subject="--x '1:2'")
    Traceback (most recent call last):
    ...
    symrmt.errors.ParameterError: --x '1:2': give LO:HI:NUM (NUM evenly spaced values) or LO:HI:NUMlog (NUM log-spaced values, LO and HI > 0) (LO:HI:NUM takes exactly three parts).
    """
    subject = subject or repr(text)
    parts = text.split(":")
    log = parts[-1].strip().lower().endswith("log")
    try:
        if len(parts) != 3:
            raise ValueError("LO:HI:NUM takes exactly three parts")
        number = parts[2].strip()
        lo, hi, num = float(parts[0]), float(parts[1]), int(number[:-3] if log else number)
    except ValueError as exc:
        reason = str(exc) if "three parts" in str(exc) else "LO and HI must be numbers and NUM an integer"
        raise ParameterError(f"{subject}: {expected} ({reason}).") from None
    if not 1 <= num <= MAX_GRID_POINTS:
        raise ParameterError(f"{subject}: NUM = {num} must be in 1..{MAX_GRID_POINTS}.")
    if plain_log and not log:
        fixed = ":".join(p.strip() for p in parts) + "log"
        warnings.warn(f"{subject}: a gamma grid LO:HI:NUM is read log-spaced, as before; write {fixed} (in the next "
                      "release LO:HI:NUM will be evenly spaced, as on every other axis).", GridSpacingWarning,
                      stacklevel=2)
        log = True
    if not (np.isfinite(lo) and np.isfinite(hi) and (not log or (lo > 0 and hi > 0))):
        raise ParameterError(f"{subject}: LO and HI must be finite numbers{' > 0 (a log grid)' if log else ''}.")
    if log:
        return np.logspace(np.log10(lo), np.log10(hi), num)
    return np.linspace(lo, hi, num) + 0.0           # + 0.0: no -0.0 in a grid


def signal_vector(mu: Any, p: int) -> np.ndarray:
    r"""The signal vector :math:`\mu` of ``weights=M`` (theory and Monte Carlo alike): real, finite, length ``p``.

    One refusal for both, so that ``attention_error(..., weights=M, mu=...)`` and ``simulate(..., weights=M,
    mu=...)`` say the same thing about the same bad vector.
    """
    try:
        array = np.asarray(mu, dtype=float).ravel() if np.asarray(mu).dtype.kind in "biuf" else None
    except (TypeError, ValueError):
        array = None
    if array is None or array.shape != (p,) or not np.all(np.isfinite(array)):
        raise ParameterError(f"mu must be a finite vector of length p = {p} (the signal of weights=M).")
    return array
