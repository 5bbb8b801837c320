"""``python -m mctslab``: the command line (see :mod:`mctslab.cli`)."""

from .cli import main

raise SystemExit(main())
