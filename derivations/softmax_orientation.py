"""Softmax over the keys against softmax over the queries: the finite-n difference of the two normalizations.
==========================================================================================================

Both have the same deterministic equivalent (docs/theory.md, section 15). On the same draws (same seeds),
normalize="keys" (each query's weights over its keys sum to one, the default) minus normalize="queries" (each
row normalized, the transposed model), relative to the theory, over a ladder of n: the difference should shrink
like the normalizers' fluctuations, O(n^{-1/2}). Setting: c = 1, tau = 0.7, a signal and asymmetric rank-one
weights (``|mu|`` = 1, ``|w_K|`` = 1.2, ``|w_Q|`` = 0.8, cosines 0.6, 0.3, 0.4), gamma/a_1^2 = 0.01, 0.1, 1.

Run::

    python derivations/softmax_orientation.py [--ns 256,1024,4096] [--seeds 4]

Prints a Markdown table (the one in docs/theory.md, section 15, was made with the defaults).
"""
import argparse
import math

import numpy as np

from symrmt import Geometry, simulate
from symrmt.theory.softmax import softmax_error, softmax_hermite

RIDGES = (0.01, 0.1, 1.0)          # gamma / a_1^2
TAU = 0.7
ASYMMETRIC = Geometry(mu_norm=1.0, wk_norm=1.2, wq_norm=0.8, cos_mu_wk=0.6, cos_mu_wq=0.3, cos_wk_wq=0.4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="256,1024,4096")
    parser.add_argument("--seeds", type=int, default=4)
    args = parser.parse_args()
    gamma = float(softmax_hermite(TAU)[0]) ** 2 * np.array(RIDGES)
    theory = softmax_error(1.0, gamma, temperature=TAU, geometry=ASYMMETRIC)
    print(f"tau = {TAU}, c = 1, asymmetric weights, {args.seeds} seeds; gamma/a_1^2 = "
          f"{', '.join(map(str, RIDGES))}; theory {' '.join(f'{v:.4f}' for v in theory)}")
    print("| n | keys - theory | queries - theory | paired keys - queries (mean ± s.e.) | relative to theory | "
          "sqrt(n) x paired |")
    print("|---|---|---|---|---|---|")
    for n in (int(k) for k in args.ns.split(",")):
        runs = {how: simulate(None, n, 1.0, gamma, ASYMMETRIC, seeds=args.seeds, attention="softmax",
                              temperature=TAU, normalize=how, progress=False) for how in ("keys", "queries")}
        paired = runs["keys"].attention_per_seed - runs["queries"].attention_per_seed
        mean, se = paired.mean(0), paired.std(0, ddof=1) / math.sqrt(args.seeds)
        cells = [" ".join(f"{v:+.4f}" for v in runs[how].attention_mean - theory) for how in ("keys", "queries")]
        cells.append(" ".join(f"{m:+.4f}±{s:.4f}" for m, s in zip(mean, se)))
        cells.append(" ".join(f"{100 * m / t:+.1f}%" for m, t in zip(mean, theory)))
        cells.append(" ".join(f"{math.sqrt(n) * m:+.3f}" for m in mean))
        print(f"| {n} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
