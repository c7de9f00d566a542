"""``python -m semv`` is the same as ``semv``."""

from semv.cli import entry

entry()
