"""``python -m symrmt`` runs the command line."""
from .cli import console

console()
