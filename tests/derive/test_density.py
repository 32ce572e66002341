"""symrmt.derive.density: the density systems are the ridge resolvents at a complex spectral argument."""
import pytest
import sympy as sp

from symrmt.derive import attention_system, density_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import DYSON
from symrmt.derive.density import DENSITY, MATRICES, STIELTJES


def test_gram_density_is_the_ridge_pencil_at_gamma_minus_z():
    gram = density_system("gram")
    dyson = next(iter(gram.definitions))
    z = S.x + sp.I * S.eta
    assert sp.expand(gram.definitions[dyson] - attention_system().definitions[DYSON].xreplace({S.gamma: -z})) \
        == sp.zeros(3, 3)


def test_observables_branch_and_parameters():
    for matrix in MATRICES:
        system = density_system(matrix)
        assert system.observables[STIELTJES] == S.tau_symbol(1, 1)
        assert system.observables[DENSITY] == sp.im(STIELTJES) / sp.pi
        assert system.branch == (sp.GreaterThan(sp.im(S.trace_symbol(1, 1)), 0),) and system.complex_unknowns
        assert [p.name for p in system.parameters] == ["c", "x", "eta", "a_1", "b", "d"]
        assert system.continuation.variable == S.eta and system.continuation.predictor == "linear"
    assert len(density_system("kernel").unknowns) == 1 and len(density_system("gram").unknowns) == 3


def test_unknown_matrix_is_refused():
    with pytest.raises(ValueError, match="matrix"):
        density_system("other")
