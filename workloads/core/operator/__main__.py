"""``python -m workloads.core.operator``: see ``app.py`` for the flags."""

import sys

from workloads.core.operator.app import main

sys.exit(main())
