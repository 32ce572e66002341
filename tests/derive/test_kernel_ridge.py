"""symrmt.derive.kernel_ridge: the second model, assembled from the attention's parts."""
import sympy as sp

from symrmt import models
from symrmt.derive import attention_system, kernel_ridge_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import ERROR, PHI
from symrmt.derive.kernel_ridge import KERNEL_NORM, kernel_ridge_pencil


def test_the_pencil_inverts_to_the_kernel_ridge_resolvent():
    k, w = sp.symbols("k omega", real=True)
    assert sp.simplify(kernel_ridge_pencil(k, 0).resolvent()[0, 0] - 1 / (S.gamma + k**2)) == 0
    # The Wigner part sits off the diagonal, so the self-energy swaps the traces of blocks 1 and 2.
    assert kernel_ridge_pencil(k, w).self_energy() == sp.Matrix(
        [[w**2 * S.trace_symbol(2, 2), w**2 * S.trace_symbol(1, 2)],
         [w**2 * S.trace_symbol(1, 2), w**2 * S.trace_symbol(1, 1)]])


def test_dyson_matrix_and_residuals():
    system = kernel_ridge_system()
    kappa = S.a1 * S.lam + S.d - S.a1
    t11, t12, t22 = (S.trace_symbol(*ij) for ij in ((1, 1), (1, 2), (2, 2)))
    expected = sp.Matrix([[S.gamma - S.b**2 * t22, kappa - S.b**2 * t12], [kappa - S.b**2 * t12, -1 - S.b**2 * t11]])
    assert (system.definitions[sp.MatrixSymbol("M", 2, 2)] - expected).expand() == sp.zeros(2, 2)
    assert system.residuals == {t: t - S.tau_symbol(*ij) / S.c for t, ij in
                                ((t11, (1, 1)), (t12, (1, 2)), (t22, (2, 2)))}


def test_the_low_rank_part_is_the_attention_L_without_the_data_term():
    """Same vectors in blocks 1 and 2, same couplings (a_1/c) Sigma, same quadratic forms; no block 3."""
    kernel, attention = kernel_ridge_system().observables[PHI], attention_system().observables[PHI]
    assert kernel.labels == attention.labels[:6] and all(label.endswith(("(1)", "(2)")) for label in kernel.labels)
    assert kernel.core == attention.core[:6, :6] and kernel.gram == attention.gram[:6, :6]
    assert kernel.source == attention.source[:6, :]
    assert kernel_ridge_system().observables[ERROR] == attention_system().observables[ERROR]


def test_without_signal_phi_is_the_trace():
    system = kernel_ridge_system().subs({s: 0 for s in S.gram_symbols(1)})
    assert sp.simplify(system.observables[PHI].expression() - S.tau_symbol(1, 1)) == 0


def test_parameters_solver_data_and_registry():
    system = kernel_ridge_system(2)
    assert tuple(system.parameters) == (*S.MODEL_PARAMETERS, *S.gram_symbols(2))
    assert system is models.KERNEL_RIDGE.system(2) and system.name == "kernel ridge, rank 2"
    t11 = S.trace_symbol(1, 1)
    assert system.branch == (sp.StrictGreaterThan(S.c * t11, 0), sp.LessThan(S.gamma * S.c * t11, 1))
    # Continuation starts above ||K||^2: 10 (1 + norm^2), the norm bound of K = a_1 A + (d - a_1) + b W/sqrt(p).
    assert system.continuation.start == 10 * (1 + KERNEL_NORM**2)
    assert KERNEL_NORM.subs({S.a1: 1, S.d: 1, S.b: 0, S.c: 1}) == 4        # f = x, d = 1: K = A, edge 4 at c = 1
