"""Public names of a package, imported on first use (PEP 562).

``import symrmt`` and ``import symrmt.nonlinearity`` then load nothing heavy: SymPy comes in
only with the first name that needs it, so the NumPy layers (``symrmt.solve``,
``symrmt.simulation``) stay free of it.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: dict[str, str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` of ``package``, whose public name ``k`` is defined in its submodule ``exports[k]``.

    ``namespace`` is the package's ``globals()``: a name, once imported, is stored there so
    that later look-ups skip ``__getattr__``.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
