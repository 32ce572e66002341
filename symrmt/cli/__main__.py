"""``python -m symrmt.cli`` runs the command line, as ``python -m symrmt`` does."""
import sys

from . import main

sys.exit(main())
