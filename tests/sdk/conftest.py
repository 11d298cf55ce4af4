"""Fixtures of the SDK and CLI tests: the SDK imported from its own directory (``sdk/``, installable on its own,
not part of the portal's package), and the workload API's fixtures (projects, users, the fake host with ``web``)
for the tests that drive the real portal through ``live_server``."""

from __future__ import annotations

import sys
from pathlib import Path

SDK_DIR = Path(__file__).resolve().parents[2] / "sdk"
if str(SDK_DIR) not in sys.path:
    sys.path.insert(0, str(SDK_DIR))

from tests.projects.conftest import (  # noqa: E402, F401
    caches,
    developer,
    fast_passwords,
    other_project,
    owner,
    project,
    region,
    viewer,
)
from tests.workloads.api.fixtures import fake_host, fresh_rate_counts, web  # noqa: E402, F401
