"""``python -m trtlog``: the command-line tool."""

from trtlog.cli import main

raise SystemExit(main())
