r"""What a system is the deterministic equivalent of: the model, stated in LaTeX lines, one set per system.

Each system carries its own statement (:attr:`~.fixed_point.FixedPointSystem.statement`, ``(line, label)``
pairs in ``align`` syntax), built here from the parts every model shares, so that a printed paper body
(:mod:`.paper`) opens with the right model without knowing which one it prints.
"""
from __future__ import annotations

__all__ = ["Statement", "ridge_statement", "density_statement"]

#: ``((line, label or None), ...)``: lines of an ``align`` environment and their labels.
Statement = tuple[tuple[str, "str | None"], ...]

_TOKENS = (r"X &= Z + \mu y^\top \in \mathbb{R}^{p \times n}, \quad Z_{ij} \overset{\text{i.i.d.}}{\sim} "
           r"\mathcal{N}(0, 1),\ y \in \{\pm 1\}^n", "X")


def _weights(rank: int) -> str:
    return r"w_K w_Q^\top" if rank == 1 else r"\sum_{h=1}^{" + str(rank) + r"} w_K^{(h)} w_Q^{(h)\top}"


def _attention(rank: int) -> Statement:
    r"""The scores and the attention matrix :math:`K` of weights :math:`I + \text{rank } r`."""
    return ((r"S &= \frac{X^\top W_K^\top W_Q\, X}{\sqrt{p}}, \quad W_K^\top W_Q = I_p + " + _weights(rank), "S"),
            (r"K_{ij} &= \frac{f(S_{ij})}{\sqrt{p}} \ (i \ne j), \quad K_{ii} = d", "K"))


def ridge_statement(gram: str, rank: int | None = None) -> Statement:
    r"""A ridge probe with Gram matrix ``gram`` (LaTeX); ``rank``: it is built on the attention matrix of that rank.

    >>> [label for _, label in ridge_statement(r"\frac{X^\top X}{n}")]
    ['X', 'Q', 'Phi']
    """
    return (_TOKENS, *(_attention(rank) if rank else ()),
            (r"Q(\gamma) &= \left(" + gram + r" + \gamma I_n\right)^{-1}, \quad \gamma > 0", "Q"),
            (r"\Phi(\gamma) &= \frac{y^\top Q(\gamma)\, y}{n}", "Phi"))


def density_statement(matrix: str, rank: int = 1) -> Statement:
    r"""The Stieltjes transform of ``matrix`` (LaTeX), built on the attention matrix of ``rank``."""
    return (_TOKENS, *_attention(rank),
            (r"m(z) &= \frac{1}{n} \operatorname{tr}\left(" + matrix + r" - z I_n\right)^{-1}, \quad "
             r"z = x + i\eta,\ \eta > 0", "m"))
