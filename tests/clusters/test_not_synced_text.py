"""What pages and the API say of a cache that is not synced: "starting" before it ever heard its apiserver,
"stale since <time>" once it had and then lost it (the data shown is old, not missing)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from types import SimpleNamespace

from clusters.health import not_synced


def cache(*, contacts, error="ReadTimeoutError: HTTPSConnectionPool(host='10.1.2.3', port=6443)"):
    return SimpleNamespace(last_error=error, stats=lambda: {k: SimpleNamespace(last_contact_at=c) for k, c in contacts})


def test_a_cache_that_never_synced_is_starting_or_unreachable():
    assert not_synced("member-a", None) == "member-a: cache not synced yet (starting)"
    assert not_synced("member-a", cache(contacts=[], error=None)) == "member-a: cache not synced yet (starting)"
    text = not_synced("member-a", cache(contacts=[("pods", None)]))
    assert text == "member-a: cache not synced yet (cannot reach its apiserver)"


def test_a_cache_that_had_synced_and_lost_its_apiserver_is_stale_since_its_last_contact():
    heard = time.time() - 300
    text = not_synced("the host", cache(contacts=[("pods", heard), ("nodes", heard + 100)]))
    since = datetime.fromtimestamp(heard, UTC).strftime("%H:%M:%S UTC")
    assert text == f"the host: stale since {since} (cannot reach its apiserver)"
    assert "not synced yet" not in text and "10.1.2.3" not in text
