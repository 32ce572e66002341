"""The Gaussian equivalence of K checked by moments, for a polynomial f with a quadratic part
===========================================================================================

The theory replaces the attention matrix K (docs/theory.md, section 1: K_ij = f(S_ij)/sqrt(p) off the
diagonal, K_ii = d) by its Gaussian equivalent (section 3)

    K_N + L = a_1 A + kappa I + (b/sqrt p) Xi + (a_1/p) Delta,   A = Z^T Z/p,  kappa = d - a_1,

with Xi a symmetric matrix of N(0, 1) entries independent of (Z, y), b^2 = nu - a_1^2, and
Delta = theta y y^T + s y^T + y s^T (s = Z^T mu, theta = |mu|^2; no weights). The step is an assumption
jointly with A (section 14). This script checks it where the theory uses it: in the Gram matrix
G = K^T X^T X K/n that the error's resolvent is built from. On the same draws (y, Z), with Xi drawn
independently, it compares the moments

    m_k = (1/n) tr(G^k),  k = 1..4,

of K against those of its Gaussian equivalent, over seeds, along a ladder of n at fixed c, and fits the
rate of their difference, |Delta m_k| ~ n^-rate (least squares on log |Delta m_k| against log n, over the
sizes where the difference is resolved, |Delta m_k| > 3 se).

f = a_1 He_1 + a_2 He_2/sqrt(2) with a_1 = 0.6, a_2 = 0.8 (nu = 1, b = a_2 = 0.8, a_0 = 0): the He_2 term
is the one whose Gaussian equivalence is not the linear part's, and it also carries the rank-two piece along
delta_i = |z_i|^2/p - 1 that section 3 says changes no trace in the limit.

Run::

    python derivations/gaussian_equivalence.py [--ns 64,128,256,512] [--seeds 64] [--c 1] [--mu-norm 1]

Prints the Markdown table of docs/validation.md, "Gaussian equivalence by moments" (made with the defaults);
tests/validation/test_gaussian_equivalence.py runs the small end of the same ladder.
"""
import argparse
import math

import numpy as np

A1, A2 = 0.6, 0.8                      # f = a_1 He_1 + a_2 He_2/sqrt(2): nu = a_1^2 + a_2^2 = 1
ORDERS = (1, 2, 3, 4)


def f(x):
    return A1 * x + A2 * (x * x - 1.0) / math.sqrt(2.0)


def moments(K, C):
    """(1/n) tr(G^k), k = 1..4, of G = K^T C K (C = X^T X/n), from the eigenvalues of the symmetric G."""
    G = K.T @ C @ K
    eig = np.linalg.eigvalsh((G + G.T) / 2)
    return np.array([np.mean(eig ** k) for k in ORDERS])


def pair(n, c, mu_norm, rng, d=0.0, b_factor=1.0):
    """The moments of K and of its Gaussian equivalent on one draw (y, Z), Xi independent; ``b_factor`` != 1
    plants an error in the equivalent (its b scaled), for the test to show the check's power."""
    p = max(1, round(c * n))
    y = 2.0 * rng.integers(0, 2, size=n) - 1.0
    Z = rng.standard_normal((p, n))
    mu = np.zeros(p)
    mu[0] = mu_norm
    X = Z + np.outer(mu, y)
    C = X.T @ X / n
    S = X.T @ X / math.sqrt(p)
    K = f(S) / math.sqrt(p)
    np.fill_diagonal(K, d)
    # The Gaussian equivalent, section 3 of docs/theory.md.
    A = Z.T @ Z / p
    s = Z.T @ mu
    delta = mu_norm ** 2 * np.outer(y, y) + np.outer(s, y) + np.outer(y, s)
    upper = np.triu(rng.standard_normal((n, n)))
    xi = upper + np.triu(upper, 1).T
    b = b_factor * math.sqrt(1.0 - A1 ** 2)
    K_eq = A1 * A + (d - A1) * np.eye(n) + b / math.sqrt(p) * xi + A1 / p * delta
    return moments(K, C), moments(K_eq, C)


def ladder(ns, seeds, c=1.0, mu_norm=1.0, seed=0, b_factor=1.0):
    """Per n: the mean moments of K and of its equivalent, and the mean and s.e. of their paired difference."""
    rows = []
    for i, n in enumerate(ns):
        rng = np.random.default_rng([seed, i])
        count = seeds[i] if np.ndim(seeds) else seeds
        pairs = np.array([pair(n, c, mu_norm, rng, b_factor=b_factor) for _ in range(count)])   # (seeds, 2, 4)
        diff = pairs[:, 0] - pairs[:, 1]
        rows.append(dict(n=n, seeds=count, mc=pairs[:, 0].mean(0), eq=pairs[:, 1].mean(0), diff=diff.mean(0),
                         se=diff.std(0, ddof=1) / math.sqrt(count)))
    return rows


def rates(rows):
    """Per order k: the exponent of |Delta m_k| ~ n^-rate over the sizes where it is resolved (> 3 se), or None."""
    out = []
    for k in range(len(ORDERS)):
        used = [(r["n"], abs(r["diff"][k])) for r in rows if abs(r["diff"][k]) > 3 * r["se"][k]]
        if len(used) < 2:
            out.append(None)
            continue
        ns, ds = np.array(used, dtype=float).T
        out.append(float(-np.polyfit(np.log(ns), np.log(ds), 1)[0]))
    return out


def table(rows):
    lines = ["| n | seeds | " + " | ".join(f"m_{k}: K, equivalent, difference ± se" for k in ORDERS) + " |",
             "|---|---|" + "---|" * len(ORDERS)]
    for r in rows:
        cells = [f"{r['mc'][k]:.4f}, {r['eq'][k]:.4f}, {r['diff'][k]:+.4f} ± {r['se'][k]:.4f}"
                 for k in range(len(ORDERS))]
        lines.append(f"| {r['n']} | {r['seeds']} | " + " | ".join(cells) + " |")
    fitted = rates(rows)
    lines.append("| rate | | " + " | ".join("unresolved" if e is None else f"n^-{e:.2f}" for e in fitted) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="64,128,256,512")
    parser.add_argument("--seeds", type=int, default=64,
                        help="seeds at every n (the s.d. of a normalized trace, and the difference, shrink as 1/n)")
    parser.add_argument("--c", type=float, default=1.0)
    parser.add_argument("--mu-norm", type=float, default=1.0)
    args = parser.parse_args(argv)
    ns = [int(v) for v in args.ns.split(",")]
    print(table(ladder(ns, args.seeds, c=args.c, mu_norm=args.mu_norm)))


if __name__ == "__main__":
    main()
