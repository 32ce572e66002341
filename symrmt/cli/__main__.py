"""``python -m symrmt.cli`` runs the command line, as ``python -m symrmt`` does."""
from . import console

console()
