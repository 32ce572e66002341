"""The Marchenko--Pastur law of A = Z^T Z / p (ratio 1/c, atom (1 - c)_+ at 0), written out independently of symrmt."""
import numpy as np
from scipy import integrate


def mp_density(lam, c):
    q = 1 / c
    lo, hi = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    return np.sqrt(np.clip((hi - lam) * (lam - lo), 0, None)) / (2 * np.pi * q * lam), lo, hi


def mp_expectation(g, c):
    """E over the law of A = Z^T Z / p (Marchenko-Pastur, ratio 1/c) by adaptive quadrature, atom included."""
    q = 1 / c
    lo, hi = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    density = lambda x: np.sqrt(max((hi - x) * (x - lo), 0.0)) / (2 * np.pi * q * x)
    real = integrate.quad(lambda x: (g(x) * density(x)).real, lo, hi, limit=400, epsabs=1e-13)[0]
    imag = integrate.quad(lambda x: (g(x) * density(x)).imag, lo, hi, limit=400, epsabs=1e-13)[0]
    return real + 1j * imag + max(0.0, 1 - c) * g(0.0)
