"""A small zoo of named nonlinearities."""
from __future__ import annotations

#: Named nonlinearities, all centered (a0 = 0), as strings for :func:`hermite`.
ZOO: dict[str, str] = {
    "x": "x",
    "tanh": "tanh(x)",
    "erf": "erf(x)",
    "sin": "sin(x)",
    "atan": "atan(x)",
    "softsign": "softsign(x)",
    "sigmoid": "sigmoid(x) - 1/2",
    "relu": "relu(x) - 1/sqrt(2*pi)",
    "gelu": "gelu(x) - 1/(2*sqrt(pi))",
    "abs": "Abs(x) - sqrt(2/pi)",
    "cos": "cos(x) - exp(-1/2)",
    "hermite2": "x**2 - 1",
    "hermite3": "x**3 - 3*x",
}
