r"""The deterministic equivalent of nonlinear attention for any weight matrix :math:`M = W_K^\top W_Q`.

See docs/theory.md, section 18 (derivation) and docs/general_weights.md (measurements). Public: :func:`attention_error_general`, :func:`solve_general`, and the cheaper model
:func:`attention_error_elliptic`.
"""
from .elliptic import attention_error_elliptic
from .solver import GeneralSolution, attention_error_general, solve_general

__all__ = ["attention_error_general", "attention_error_elliptic", "solve_general", "GeneralSolution"]
