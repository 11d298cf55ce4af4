"""``python -m pincompute.operator``: see ``app.py`` for the flags."""

import sys

from pincompute.operator.app import main

sys.exit(main())
