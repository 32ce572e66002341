"""Rank-1 against rank-r attention weights of the same total strength.

W_K^T W_Q = I + sum_k w_K^(k) w_Q^(k)^T with sum_k |w^(k)|^2 fixed: the error against the ridge
for r = 1, 2, 3.

Run:  python derivations/rank.py [--quick] [--out DIR]
 or:  symrmt figure rank [--quick] [--out DIR]
Writes rank.png and rank.csv (the plotted numbers) into DIR (default derivations/out/).
The figure is built by symrmt/figures/rank.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("rank", sys.argv[1:]))
