"""Random inputs: nonlinear attention interpolates worse than linear regression.

E_attn(gamma) and E_lin(gamma) on pure noise (mu = 0, no weights) for tanh, centred ReLU,
erf, sin, centred GELU and f = x: against the ridge at c = 1 and against c = p/n at gamma = 0.1.

Run:  python derivations/random_inputs.py [--quick] [--out DIR]
 or:  symrmt figure random_inputs [--quick] [--out DIR]
Writes random_inputs.png and random_inputs.csv (the plotted numbers) into DIR (default derivations/out/).
The figure is built by symrmt/figures/random_inputs.py.
"""
import sys

from symrmt.figures import main

if __name__ == "__main__":
    sys.exit(main("random_inputs", sys.argv[1:]))
