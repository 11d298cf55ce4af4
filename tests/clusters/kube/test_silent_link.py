"""A watch whose TCP path dies silently (no reset: a held forwarder swallows every byte) is noticed within the watch
timeout plus its read margin, the cache reports itself stale meanwhile, and it is current again once the path
answers. Production: WATCH_TIMEOUT_SECONDS 40 + 15 s margin, under a minute (it was 300 + 30 s)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from kubernetes import client as k8s

from clusters.health import is_stale, staleness
from clusters.kube import ClientPool, ClusterTarget, WatchCache
from pincompute.kube.rawapi import WATCH_READ_MARGIN
from tests.harness.forwarder import TcpForwarder
from tests.support.factories import make_cluster
from tests.support.watch import eventually

WATCH_TIMEOUT = 4


@pytest.fixture
def forwarded(local_control_plane, member_target, tmp_path) -> Iterator[tuple[TcpForwarder, ClusterTarget]]:
    info = local_control_plane.cluster(member_target.name)
    target = urlsplit(info.server)
    forwarder = TcpForwarder((target.hostname or "127.0.0.1", target.port or 443))
    forwarder.start()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        Path(local_control_plane.kubeconfig_path)
        .read_text()
        .replace(info.server, f"https://127.0.0.1:{forwarder.port}")
    )
    yield forwarder, ClusterTarget(member_target.name, str(kubeconfig), member_target.context)
    forwarder.stop()


class OneCache:
    """The runtime's cache registry as the pages see it, holding this test's cache."""

    def __init__(self, cache: WatchCache) -> None:
        self.cache = cache

    def ensure(self, targets: object) -> None:
        """The page asks for every registered cluster's cache; this test's one is running already."""

    def names(self) -> list[str]:
        return [self.cache.cluster]

    def get(self, name: str) -> WatchCache:
        return self.cache


@pytest.mark.django_db
def test_a_silently_dead_watch_is_noticed_and_reported_stale(
    forwarded, pool, member_target, settings, admin_client_, monkeypatch
):
    forwarder, target = forwarded
    settings.WATCH_STALE_SECONDS = WATCH_TIMEOUT + 2
    watched = ClientPool([target])
    cache = WatchCache(watched, target.name, watch_timeout=WATCH_TIMEOUT)
    cache.start()
    try:
        assert cache.wait_synced(30), cache.last_error
        time.sleep(WATCH_TIMEOUT + 1)  # a quiet collection: the server ends each watch, the cache stays current
        assert not is_stale(cache) and staleness(cache) < WATCH_TIMEOUT + 1

        forwarder.hold()  # from now on nothing comes back, and nothing is reset either
        held_at = time.monotonic()
        eventually(lambda: is_stale(cache), WATCH_TIMEOUT + 10, "the cache to call itself stale")
        eventually(
            lambda: any(s.last_error for s in cache.stats().values()),
            WATCH_TIMEOUT + WATCH_READ_MARGIN + 10,
            "a watch to give up on the silent link",
        )
        noticed_after = time.monotonic() - held_at
        make_cluster(target.name)
        make_cluster("member-elsewhere", zone="local-1b")
        monkeypatch.setattr("clusters.health.runtime.cache_registry", lambda: OneCache(cache))
        page = admin_client_.get("/clusters/").content.decode()
        rows = {name: page.split(f">{name}<", 1)[1].split("</tr>", 1)[0] for name in (target.name, "member-elsewhere")}
        assert "data stale" in rows[target.name] and "data stale" not in rows["member-elsewhere"]

        forwarder.release()
        name = f"silent-{int(time.time())}"
        k8s.CoreV1Api(pool.api(member_target.name)).create_namespace({"metadata": {"name": name}})
        try:
            eventually(lambda: cache.get("namespaces", None, name) is not None, 60, "the cache to catch up")
            eventually(lambda: not is_stale(cache), 60, "every watch to be back (each after its own backoff)")
        finally:
            k8s.CoreV1Api(pool.api(member_target.name)).delete_namespace(name)
        assert noticed_after <= WATCH_TIMEOUT + WATCH_READ_MARGIN + 10
    finally:
        cache.stop(timeout=5)
        watched.close()
