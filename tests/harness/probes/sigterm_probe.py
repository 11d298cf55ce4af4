"""Run only by tests/devtools/test_harness_sigterm.py, in a pytest session of its own: it says where the session's
components listen, then waits to be stopped (its name keeps the suite from collecting it)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path


def test_wait_for_the_signal(local_control_plane):
    ports = {"DATABASE_URL": os.environ["DATABASE_URL"], "REDIS_URL": os.environ["REDIS_URL"],
             "apiserver": local_control_plane.cluster("host").server}  # fmt: skip
    Path(os.environ["SIGTERM_PROBE_OUT"]).write_text(json.dumps(ports))
    time.sleep(600)
