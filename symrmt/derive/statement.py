r"""What a system is the deterministic equivalent of: the model, its assumptions and the status of the claim.

Each system carries its own :class:`Statement` (:attr:`~.fixed_point.FixedPointSystem.statement`): the
model as ``(line, label)`` pairs in ``align`` syntax, the assumptions under which the equivalent is
stated (LaTeX text, one item each) and its status, ``"theorem"`` where the literature proves it (linear
regression, the spectrum of a symmetric kernel matrix) and ``"heuristic"`` elsewhere (attention and
kernel ridge at any rank, the spectrum of :math:`K^\top X^\top X K/n`), with the steps that are not proven.
A printed paper body (:mod:`.paper`) opens with them without knowing which model it prints.
"""
from __future__ import annotations

__all__ = ["Statement", "ridge_statement", "density_statement"]

#: ``(line, label or None)``: one line of an ``align`` environment and its label.
Line = tuple[str, "str | None"]

_TOKENS = (r"X &= Z + \mu y^\top \in \mathbb{R}^{p \times n}, \quad Z_{ij} \overset{\text{i.i.d.}}{\sim} "
           r"\mathcal{N}(0, 1),\ y \in \{\pm 1\}^n", "X")

_LIMIT = r"$n, p \to \infty$ with $p/n \to c \in (0, \infty)$."
_DATA = (r"The entries of $Z$ are i.i.d.\ $\mathcal{N}(0, 1)$; the labels $y_i$ are i.i.d.\ uniform on "
         r"$\{\pm 1\}$ and independent of $Z$.")
_F = (r"$f$ is centred, $\mathbb{E}f(\xi) = 0$ for $\xi \sim \mathcal{N}(0, 1)$, square integrable and of "
      r"polynomial growth, with a weak derivative of polynomial growth; the diagonal $d$ is fixed.")
_WHY = {"attention": r"replacing $K$ by its Gaussian equivalent inside $Q(\gamma)$, and the equations for the $t_{ij}$, "
                     r"are derived, not proven; the statement is checked against simulation.",
        "gram": r"the equations for the $t_{ij}$ are derived, not proven, for this matrix; the statement is checked "
                r"against simulation."}


class Statement(tuple):
    r"""The model's lines (a tuple of ``(line, label)`` pairs) with its assumptions and status.

    Attributes
    ----------
    assumptions : tuple of str
        One LaTeX text item per assumption.
    status : str
        ``"theorem"`` (proven in the literature under the assumptions) or ``"heuristic"``.
    why : str
        For a heuristic: which steps are not proven (LaTeX text); empty for a theorem.

    Examples
    --------
    >>> s = ridge_statement(r"\frac{X^\top X}{n}")
    >>> s.status, [label for _, label in s]
    ('theorem', ['X', 'Q', 'Phi'])
    """

    assumptions: tuple[str, ...]
    status: str
    why: str

    def __new__(cls, lines=(), assumptions: tuple[str, ...] = (), status: str = "heuristic", why: str = ""):
        self = super().__new__(cls, lines)
        self.assumptions, self.status, self.why = tuple(assumptions), status, why
        return self

    def __reduce__(self):
        return (Statement, (tuple(self), self.assumptions, self.status, self.why))


def _weights(rank: int) -> str:
    return r"w_K w_Q^\top" if rank == 1 else r"\sum_{h=1}^{" + str(rank) + r"} w_K^{(h)} w_Q^{(h)\top}"


def _vectors(rank: int | None) -> str:
    if rank is None:
        return r"The signal $\mu \in \mathbb{R}^p$ is deterministic, with $\|\mu\|^2$ fixed."
    vectors = r"$\mu, w_K, w_Q$" if rank == 1 else r"$\mu$ and the $w_K^{(h)}, w_Q^{(h)}$"
    return (r"The signal $\mu \in \mathbb{R}^p$ and the weight vectors are deterministic; the inner products of "
            + vectors + f" are fixed, and so is the rank $r = {rank}$.")


def _attention(rank: int) -> tuple[Line, ...]:
    r"""The scores and the attention matrix :math:`K` of weights :math:`I + \text{rank } r`."""
    return ((r"S &= \frac{X^\top W_K^\top W_Q\, X}{\sqrt{p}}, \quad W_K^\top W_Q = I_p + " + _weights(rank), "S"),
            (r"K_{ij} &= \frac{f(S_{ij})}{\sqrt{p}} \ (i \ne j), \quad K_{ii} = d", "K"))


def ridge_statement(gram: str, rank: int | None = None) -> Statement:
    r"""A ridge probe with Gram matrix ``gram`` (LaTeX); ``rank``: it is built on the attention matrix of that rank.

    Without ``rank`` (linear regression) the equivalent is a theorem (Marchenko--Pastur, Bai--Silverstein).

    >>> [label for _, label in ridge_statement(r"\frac{X^\top X}{n}")]
    ['X', 'Q', 'Phi']
    """
    lines = (_TOKENS, *(_attention(rank) if rank else ()),
             (r"Q(\gamma) &= \left(" + gram + r" + \gamma I_n\right)^{-1}, \quad \gamma > 0", "Q"),
             (r"\Phi(\gamma) &= \frac{y^\top Q(\gamma)\, y}{n}", "Phi"))
    assumptions = (_LIMIT + r" The ridge parameter $\gamma > 0$ is fixed.", _DATA, _vectors(rank),
                   *((_F,) if rank else ()))
    if rank is None:
        return Statement(lines, assumptions, "theorem")
    return Statement(lines, assumptions, "heuristic", _WHY["attention"])


def density_statement(matrix: str, rank: int = 1) -> Statement:
    r"""The Stieltjes transform of ``matrix`` (LaTeX), built on the attention matrix of ``rank``.

    The spectrum of the symmetric kernel matrix ``K`` is a theorem (Cheng and Singer; Fan and Montanari); that
    of any other matrix is heuristic.
    """
    lines = (_TOKENS, *_attention(rank),
             (r"m(z) &= \frac{1}{n} \operatorname{tr}\left(" + matrix + r" - z I_n\right)^{-1}, \quad "
              r"z = x + i\eta,\ \eta > 0", "m"))
    assumptions = (_LIMIT + r" The point $z = x + i\eta$, $\eta > 0$, is fixed.", _DATA, _vectors(rank), _F)
    if matrix == "K":
        return Statement(lines, assumptions, "theorem")
    return Statement(lines, assumptions, "heuristic", _WHY["gram"])
