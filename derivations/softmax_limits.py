"""Where the softmax normalization stops being a small diagonal perturbation: small tau, strong aligned weights.
=============================================================================================================

For each setting, on the same draws (same seeds): softmax attention over the keys, K' = K^exp D (D =
diag((n-1) e^{1/(2 tau^2)} / column sum), each query j normalized over its keys i), against the entrywise
K^exp_ij = e^{S_ij/tau}/sqrt(p), against the transposed convention normalize="queries" (K' = D' K^exp, each row
normalized), and against the theory (symrmt.theory.softmax.softmax_error), which is the same for both
conventions. Also the normalizers themselves (the column sums): their mean relative to (n-1) e^{1/(2 tau^2)}, and
their relative spread against the prediction sqrt((e^{1/tau^2} - 1)/n + 1/(2 tau^4 p)) (docs/theory.md,
section 15). The ridge is given as gamma / a_1^2 (the error depends on gamma only through it).

Run::

    python derivations/softmax_limits.py [--n 1024] [--seeds 4] [--c 1]

Prints a Markdown table (the one in docs/theory.md, section 15, was made with the defaults).
"""
import argparse
import math

import numpy as np

from symrmt import Geometry, simulate
from symrmt.simulation import setup, simulate_once
from symrmt.simulation import model as finite
from symrmt.theory.softmax import softmax_error, softmax_hermite

RIDGES = (0.01, 0.1, 1.0)          # gamma / a_1^2


def settings():
    """(label, tau, geometry): the temperature ladder with a signal, then aligned weights of growing norm."""
    for tau in (2.0, 1.0, 0.7, 0.5, 0.4, 0.3):
        yield f"|mu| = 1, tau = {tau:g}", tau, Geometry(mu_norm=1.0)
    for tau in (1.0, 0.5):
        for w in (1.0, 2.0, 4.0):
            yield (f"|mu| = 1, w_K = w_Q = {w:g} mu, tau = {tau:g}", tau,
                   Geometry(mu_norm=1.0, wk_norm=w, wq_norm=w, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0))


def column_sums(n, c, tau, geometry, seeds):
    """Mean and relative spread of the column sums (query j's normalizer over its keys) over columns and seeds,
    relative to (n-1) e^{1/(2 tau^2)}."""
    model, _ = setup.validated_model(n, c, geometry, None, 0.0, False, None)
    model = setup.with_attention(model, None, "softmax", tau, True)
    ratios = []
    for seed in range(seeds):
        _, X, vectors = finite.draw(model, np.random.default_rng(1000 + seed))
        S, _ = finite.scores(X, vectors, keep_gram=False)
        S = S.T                                        # row j of S^T: query j against its keys
        np.fill_diagonal(S, -np.inf)
        top = S.max(axis=1)
        sums = np.exp((S - top[:, None]) / tau).sum(axis=1)
        ratios.append(np.exp(top / tau + np.log(sums)) / ((n - 1) * math.exp(0.5 / tau**2)))
    ratios = np.concatenate(ratios)
    return ratios.mean(), ratios.std() / ratios.mean()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--c", type=float, default=1.0)
    args = parser.parse_args()
    n, c, seeds = args.n, args.c, args.seeds
    p = round(c * n)
    print(f"n = {n}, p = {p}, {seeds} seeds; gamma/a_1^2 = {', '.join(map(str, RIDGES))}; "
          "paired = on the same draws (mean +- s.e.); softmax over the keys unless said")
    print("| setting | column sum / (n-1)e^(1/2tau^2) | spread (predicted) | softmax - theory | paired softmax - exp "
          "| paired keys - queries | theory |")
    print("|---|---|---|---|---|---|---|")
    for label, tau, geometry in settings():
        a1 = float(softmax_hermite(tau)[0])
        gamma = a1**2 * np.array(RIDGES)
        soft = simulate(None, n, c, gamma, geometry, seeds=seeds, attention="softmax", temperature=tau,
                        progress=False)
        rows = simulate(None, n, c, gamma, geometry, seeds=seeds, attention="softmax", temperature=tau,
                        normalize="queries", progress=False)
        # simulate refuses the uncentered e^{x/tau}; simulate_once on simulate's generators draws the same.
        rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(0).spawn(seeds)]
        entry = np.array([simulate_once(lambda x, t=tau: np.exp(x / t), n, c, gamma, geometry, 0.0, rng)[0]
                          for rng in rngs])
        diff = soft.attention_per_seed - entry
        orientation = soft.attention_per_seed - rows.attention_per_seed
        theory = softmax_error(c, gamma, temperature=tau, geometry=geometry)
        mean, spread = column_sums(n, c, tau, geometry, seeds)
        predicted = math.sqrt(math.expm1(1 / tau**2) / n + 1 / (2 * tau**4 * p))
        cells = [" ".join(f"{v:+.4f}" for v in soft.attention_mean - theory),
                 " ".join(f"{m:+.4f}±{s:.4f}" for m, s in zip(diff.mean(0), diff.std(0, ddof=1) / math.sqrt(seeds))),
                 " ".join(f"{m:+.4f}±{s:.4f}" for m, s in zip(orientation.mean(0),
                                                                orientation.std(0, ddof=1) / math.sqrt(seeds))),
                 " ".join(f"{v:.4f}" for v in theory)]
        print(f"| {label} | {mean:.3f} | {spread:.3f} ({predicted:.3f}) | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
