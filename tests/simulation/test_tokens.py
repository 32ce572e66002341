"""The token laws of the Monte Carlo: centred, unit variance, and the fourth moment each one states."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symrmt.errors import ParameterError, ParameterTypeError
from symrmt.simulation.tokens import TokenLaw, student_t, token_law, two_point

#: Entries per moment check. Every bound below is six standard errors of the sample moment at this size, each
#: standard error computed from the law's own higher moment, so a correct law fails with probability < 1e-8.
N = 400_000

#: Laws whose eighth moment is finite, so that the sample m4 has a standard error (student_t needs nu > 8).
LAWS = ["gaussian", "rademacher", "two_point:0.2", "two_point:0.5", "student_t:12", "sparse:0.1", "sparse:1"]


def moment_gaps(law: TokenLaw, seed: int = 0) -> tuple[float, float, float]:
    """(mean, E z^2 - 1, m4 - law.fourth_moment), each in units of its standard error at N entries.

    A law whose z^2 or z^4 is constant (Rademacher) has a zero standard error; it is floored at 1e-9, far above
    round-off and far below any real error."""
    z = law.draw(np.random.default_rng(seed), (N,))
    m2, m4, m8 = (float(np.mean(z**k)) for k in (2, 4, 8))

    def error(variance: float) -> float:
        return max(math.sqrt(max(variance, 0.0) / N), 1e-9)

    return (float(z.mean()) / error(m2), (m2 - 1) / error(m4 - m2**2),
            (m4 - law.fourth_moment) / error(m8 - m4**2))


@pytest.mark.parametrize("name", LAWS)
def test_each_law_is_centred_with_unit_variance_and_its_stated_fourth_moment(name):
    assert max(abs(g) for g in moment_gaps(token_law(name))) < 6


def test_a_law_with_a_wrong_fourth_moment_is_caught():
    """The power of the check: two_point:0.2 (m4 = 3.25) claimed Gaussian (m4 = 3) is 6 standard errors off."""
    planted = TokenLaw("planted", two_point(0.2).sample, 3.0)
    assert abs(moment_gaps(planted)[2]) > 6


def test_the_heavy_tail_is_unit_variance():
    """student_t:5 has no finite eighth moment, so only its mean and variance are held (m4 = 3 * 3 / 1 = 9)."""
    law = student_t(5)
    assert law.fourth_moment == 9.0
    z = law.draw(np.random.default_rng(1), (N,))
    assert abs(z.mean()) < 6 * math.sqrt(1 / N) and abs(z.var() - 1) < 0.1


def test_named_fourth_moments():
    assert token_law(None).fourth_moment == 3.0
    assert token_law("rademacher").fourth_moment == 1.0
    assert token_law("two_point:0.5").fourth_moment == pytest.approx(1.0)
    assert token_law("student_t:6").fourth_moment == 6.0
    assert token_law("sparse:0.25").fourth_moment == 12.0


def test_a_user_sampler_gets_its_fourth_moment_estimated():
    law = token_law(lambda rng, shape: 2.0 * rng.integers(0, 2, size=shape) - 1.0)
    assert law.name == "user" and law.fourth_moment == 1.0 and law.fourth_moment_error == 0.0
    gaussian = token_law(lambda rng, shape: rng.standard_normal(shape))
    assert abs(gaussian.fourth_moment - 3.0) < 6 * gaussian.fourth_moment_error


@pytest.mark.parametrize("law, words", [
    ("cauchy", "unknown token law"),
    ("student_t", "needs a number"),
    ("student_t:4", "(4, 1e+06]"),
    ("student_t:3", "(4, 1e+06]"),
    ("sparse:0", "(0, 1]"),
    ("two_point:1", "(0, 1)"),
    ("gaussian:2", "takes no parameter"),
    (lambda rng, shape: rng.standard_normal(shape) + 1.0, "centred with unit variance"),
    (lambda rng, shape: 3 * rng.standard_normal(shape), "centred with unit variance"),
    (lambda rng, shape: np.full(shape, np.nan), "non-finite"),
    (lambda rng, shape: rng.standard_normal(7), "shape"),
    (lambda rng, shape: "zz", "not an array of numbers"),
])
def test_bad_laws_get_one_line(law, words):
    with pytest.raises(ParameterError) as caught:
        token_law(law)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_law_of_another_type_is_a_type_error():
    with pytest.raises(ParameterTypeError):
        token_law(3)
    with pytest.raises(ParameterTypeError):
        student_t("5")


# The law in the Monte Carlo: simulate(tokens=...), its report, and the command line.

def _run(**kwargs):
    from symrmt.simulation import simulate

    return simulate("tanh(x)", 64, 1.0, [0.1, 1.0], seeds=2, progress=False, **kwargs)


def test_gaussian_tokens_draw_exactly_as_before():
    default, named = _run(), _run(tokens="gaussian")
    assert np.array_equal(default.attention_per_seed, named.attention_per_seed)
    assert default.tokens is None and "tokens" not in default.as_dict()


def test_the_law_draws_every_noise_entry_and_is_reported():
    shapes = []

    def recorded(rng, shape):
        shapes.append(tuple(shape))
        return 2.0 * rng.integers(0, 2, size=shape) - 1.0

    result = _run(tokens=recorded, test_tokens=16)
    # one draw of Z (p, n) per seed, and the test tokens' z (tokens, p), besides the moment check's draw
    assert shapes.count((64, 64)) == 2 and (16, 64) in shapes
    assert result.tokens == {"name": "user", "m4": 1.0, "m4_error": 0.0}
    assert result.as_dict()["tokens"]["m4"] == 1.0
    assert not np.array_equal(result.attention_per_seed, _run().attention_per_seed)


def test_the_command_line_reads_the_law(capsys):
    from symrmt.cli import main

    assert main(["simulate", "--f", "tanh(x)", "--n", "64", "--c", "1", "--gamma", "0.1", "--seeds", "2", "--quiet",
                 "--tokens", "sparse:0.5"]) in (0, None)
    assert "tokens sparse:0.5, m4 = 6" in capsys.readouterr().out
    for bad, words in ((["--tokens", "cauchy"], "unknown token law"),
                       (["--tokens", "rademacher", "--spectrum"], "--spectrum draws Gaussian tokens")):
        assert main(["simulate", "--f", "tanh(x)", "--n", "64", "--c", "1", "--gamma", "0.1", "--seeds", "2",
                     "--quiet", *bad]) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err
