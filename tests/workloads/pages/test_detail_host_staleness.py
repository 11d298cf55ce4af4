"""The workload detail page (and its status and timeline partials) says when the host's cache it reads from is
unreachable or stale, as the list page does: otherwise the last status heard looks current."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from tests.support.fake_host import HX, URL, fake_host, text, web  # noqa: F401


@pytest.mark.usefixtures("web")
def test_the_detail_page_and_its_partials_mark_an_unreachable_host(owner, client):
    from clusters import runtime

    cache = runtime.host_cache()
    cache.synced = False
    cache.last_error = "ReadTimeoutError: HTTPSConnectionPool(host='10.0.0.1', port=6443)"
    heard = time.time() - 90
    cache.stats = lambda: {"pinapps": SimpleNamespace(last_contact_at=heard)}
    client.force_login(owner)

    for url, headers in ((URL, {}), (f"{URL}status/", HX), (f"{URL}timeline/", HX)):
        page = text(client.get(url, **headers))
        assert "data-host-problem" in page, url
        assert "the host: stale since" in page, url
        assert "10.0.0.1" not in page


@pytest.mark.usefixtures("web")
def test_a_synced_host_cache_that_heard_nothing_lately_is_marked_stale(owner, client, settings):
    from clusters import runtime

    cache = runtime.host_cache()
    heard = time.time() - settings.WATCH_STALE_SECONDS - 30
    cache.stats = lambda: {"pinapps": SimpleNamespace(last_contact_at=heard)}
    client.force_login(owner)

    page = text(client.get(f"{URL}status/", **HX))
    assert "data-host-problem" in page and "stale since" in page


@pytest.mark.usefixtures("web")
def test_a_fresh_host_shows_no_marker(owner, client):
    client.force_login(owner)
    assert "data-host-problem" not in text(client.get(URL))
