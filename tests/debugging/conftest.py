"""Fixtures for the debugging tests (defined in tests/support/debugging.py): one project per fixture, members by
role, live pods, websocket servers; throttle counts start at none."""

from tests.support.api_host import fresh_rate_counts  # noqa: F401 (autouse: refusal windows in the cache)
from tests.support.debugging import (  # noqa: F401 - fixtures, used by name
    close_thread_connections,
    fake_member,
    live_pods,
    other_project,
    project,
    spread_workload,
    uvicorn_default_ws,
)
