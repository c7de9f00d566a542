"""``python -m semv`` is the same as ``semv``; ``semv verify``'s worker processes start
before the CLI (typer, rich) is imported (``semv._prelude``)."""

import sys

from semv._prelude import start_workers

start_workers(sys.argv[1:])

from semv.cli import entry  # noqa: E402 - after the workers started

entry()
