r"""The result of :func:`~symrmt.simulation.simulate`: the errors over seeds, the settings, JSON, CSV and HTML."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..display import simulation_html, to_csv
from ..geometry import Geometry
from .seeds import t_interval

__all__ = ["SimulationResult", "CurveResult", "TestErrors", "frozen"]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    r"""Monte Carlo interpolation errors over ``seeds`` independent draws.

    Attributes
    ----------
    gamma : numpy.ndarray
        Ridge parameters, shape ``(G,)``, in the order given.
    attention_mean, attention_se : numpy.ndarray
        Mean of :math:`E_{\rm attn}(\gamma)` over seeds and its standard error
        ``std(ddof=1) / sqrt(seeds)``, shape ``(G,)``.
    linear_mean, linear_se : numpy.ndarray
        The same for the linear baseline :math:`E_{\rm lin}(\gamma)`.
    attention_per_seed, linear_per_seed : numpy.ndarray
        The individual draws, shape ``(seeds, G)``.
    n, p : int
        Number of tokens and dimension, :math:`p = \operatorname{round}(c n)`.
    c, d : float
        Requested ratio and the diagonal of :math:`K`.
    seeds, seed : int
        Number of draws and the root seed of their ``SeedSequence``.
    geometry : Geometry or None
        Norms and cosines of :math:`(\mu, w_K, w_Q)` when the weights have rank one
        (given directly, or read from a 3-by-3 Gram matrix); ``None`` for r > 1.
    gram : numpy.ndarray
        The Gram matrix of :math:`(\mu, w_K^{(1..r)}, w_Q^{(1..r)})`, shape ``(1+2r, 1+2r)``.
    method : str
        The ``method`` asked for.
    routes : dict
        For ``"attention"`` and ``"linear"``: how many seeds each route of
        :mod:`~symrmt.simulation.linalg` served (``"lanczos"``, ``"tridiagonal"``, ``"exact"``).
    weights : dict or None
        With ``weights=``: :meth:`WeightMatrix.summary <symrmt.simulation.weights.WeightMatrix.summary>`
        (``form``, ``p``, ``frobenius_norm``, and ``rank``, ``shift`` when factored); ``gram`` then
        holds :math:`\mu` alone. ``None`` for the Gram path.
    softmax : dict or None
        With ``attention="softmax"``: ``temperature``, ``mask_diagonal`` and ``scale``
        (:math:`\sigma_\tau`, :func:`symrmt.simulation.softmax.softmax_scale`) and ``normalize``
        (``"keys"`` or ``"queries"``); ``None`` for entrywise attention.
    agreement : Agreement or None
        With ``simulate(..., theory=True)``: the theory at the same ridges, the standardized difference of each
        point and the verdicts (:class:`symrmt.analysis.agreement.Agreement`); else ``None``.
    test : TestErrors or None
        With ``simulate(..., test_tokens=N)``: the in-context test errors of the same draws
        (:mod:`~symrmt.simulation.new_tokens`); else ``None``.
    tokens : dict or None
        With ``simulate(..., tokens=LAW)`` other than Gaussian: the law's ``name``, its fourth moment ``m4`` and
        ``m4_error`` (:meth:`TokenLaw.summary <symrmt.simulation.tokens.TokenLaw.summary>`); ``None`` for Gaussian
        tokens.

    The arrays are read-only.

    Examples
    --------
    >>> import symrmt
    >>> r = symrmt.simulate("tanh(x)", n=64, c=1.0, gamma=[0.1, 1.0], seeds=2, progress=False)
    >>> r.attention_mean.shape, r.attention_per_seed.shape, (r.n, r.p, r.seeds)
    ((2,), (2, 2), (64, 64, 2))
    """

    gamma: np.ndarray
    attention_mean: np.ndarray
    attention_se: np.ndarray
    linear_mean: np.ndarray
    linear_se: np.ndarray
    attention_per_seed: np.ndarray
    linear_per_seed: np.ndarray
    n: int
    p: int
    c: float
    d: float
    seeds: int
    seed: int
    geometry: Geometry | None
    gram: np.ndarray | None = None
    method: str = "exact"
    routes: dict = field(default_factory=dict)
    weights: dict | None = None
    softmax: dict | None = None
    agreement: Any = None
    test: TestErrors | None = None
    tokens: dict | None = None

    def _repr_html_(self) -> str:
        """Jupyter: a small table, gamma and both errors as mean ± standard error."""
        return simulation_html(self)

    def to_csv(self, path=None) -> str:
        """CSV, one row per gamma (means and standard errors, then the settings); written to ``path`` if given."""
        return to_csv(self, path)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (plain lists and numbers).

        Keys: ``gamma``; ``attention`` and ``linear``, each with ``mean``, ``se``
        and ``per_seed``; ``n``, ``p``, ``c``, ``d``, ``seeds``, ``seed``,
        ``geometry`` (as :meth:`Geometry.as_dict`, or ``null`` for r > 1),
        ``gram`` (a nested list), ``method``, ``routes``, ``weights`` and ``softmax`` (or ``null``), and
        ``agreement`` (:meth:`Agreement.as_dict <symrmt.analysis.agreement.Agreement.as_dict>`) when the
        theory was attached.
        """
        out = {
            "gamma": self.gamma.tolist(),
            "attention": {"mean": self.attention_mean.tolist(), "se": self.attention_se.tolist(),
                          "per_seed": self.attention_per_seed.tolist()},
            "linear": {"mean": self.linear_mean.tolist(), "se": self.linear_se.tolist(),
                       "per_seed": self.linear_per_seed.tolist()},
            "n": self.n, "p": self.p, "c": self.c, "d": self.d,
            "seeds": self.seeds, "seed": self.seed,
            "geometry": None if self.geometry is None else self.geometry.as_dict(),
            "gram": None if self.gram is None else self.gram.tolist(),
            "method": self.method, "routes": {k: dict(v) for k, v in self.routes.items()},
            "weights": None if self.weights is None else dict(self.weights),
            "softmax": None if self.softmax is None else dict(self.softmax),
        }
        if self.agreement is not None:
            out["agreement"] = self.agreement.as_dict()
        if self.test is not None:
            out["test"] = self.test.as_dict()
        if self.tokens is not None:
            out["tokens"] = dict(self.tokens)
        return out


@dataclass(frozen=True, eq=False)
class CurveResult:
    r"""One Monte Carlo error curve over ``seeds`` draws (arrays read-only): the fields the second
    model's and the heads' results share.

    ``mean`` and ``se`` (``std(ddof=1)/sqrt(seeds)``) have shape ``(G,)``, ``per_seed``
    ``(seeds, G)``; the settings are those of :class:`SimulationResult`.
    """

    gamma: np.ndarray
    mean: np.ndarray
    se: np.ndarray
    per_seed: np.ndarray
    n: int
    p: int
    c: float
    d: float
    seeds: int
    seed: int
    gram: np.ndarray


@dataclass(frozen=True, eq=False)
class TestErrors:
    r"""The in-context test errors :math:`E_{\rm test}(\gamma)` of a :class:`SimulationResult`'s draws (read-only).

    Attributes
    ----------
    tokens : int
        Fresh tokens per draw (:mod:`~symrmt.simulation.new_tokens`).
    attention_mean, attention_se, linear_mean, linear_se : numpy.ndarray
        Mean over seeds and its standard error ``std(ddof=1)/sqrt(seeds)``, shape ``(G,)``, as for the
        interpolation errors.
    attention_per_seed, linear_per_seed : numpy.ndarray
        Each draw's average over its ``tokens`` fresh tokens, shape ``(seeds, G)``.
    """

    __test__ = False   # not a pytest class, whatever its name

    tokens: int
    attention_mean: np.ndarray
    attention_se: np.ndarray
    linear_mean: np.ndarray
    linear_se: np.ndarray
    attention_per_seed: np.ndarray
    linear_per_seed: np.ndarray

    def interval(self, which: str = "attention", level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(mean, lo, hi)``: the Student-t interval over seeds of ``which`` ("attention" or "linear")."""
        return t_interval(getattr(self, f"{which}_per_seed"), level)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``tokens``, and ``attention`` and ``linear`` each with ``mean``, ``se`` and ``per_seed``."""
        return {"tokens": self.tokens,
                "attention": {"mean": self.attention_mean.tolist(), "se": self.attention_se.tolist(),
                              "per_seed": self.attention_per_seed.tolist()},
                "linear": {"mean": self.linear_mean.tolist(), "se": self.linear_se.tolist(),
                           "per_seed": self.linear_per_seed.tolist()}}


def frozen(*arrays: np.ndarray) -> list[np.ndarray]:
    """Read-only float64 copies, so that a frozen result is really immutable."""
    out = []
    for array in arrays:
        array = np.array(array, dtype=np.float64)
        array.setflags(write=False)
        out.append(array)
    return out
