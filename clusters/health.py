"""Cluster reachability: probes (which record), checks (which do not) and the health pages show.

Pages never probe. What they show is the newest observation of each cluster, whichever recorded it:

- recorded: the registry row, written by ``probe_cluster`` from the ``clusters.probe_all`` task (Celery
  beat in production), the Probe now button and the dev command's start-up;
- live: this process's circuit breaker for the cluster, fed by every call the process makes to it (the
  watch caches' lists and watches, readiness checks, probes). In the embedded default, with no beat,
  the member clusters' watch caches keep this current.

An open breaker means the process is refusing calls to the cluster right now, so it wins regardless.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

from django.conf import settings
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from urllib3.exceptions import HTTPError

from clusters import runtime, services
from clusters.kube.breaker import CircuitOpen
from clusters.kube.cache import WatchCache
from clusters.kube.client import ClusterHealth
from clusters.models import Cluster

State = Literal["healthy", "unreachable", "unknown"]


@dataclass(frozen=True)
class Health:
    state: State
    as_of: datetime | None  # when the observation shown was made
    source: Literal["probe", "live", ""]  # the registry's last probe, or this process's last call
    error: str = ""
    breaker: str | None = None  # closed / half_open / open when this process talks to the cluster
    stale_seconds: float | None = None  # set when this process's cache of the cluster has heard nothing lately

    @property
    def healthy(self) -> bool:
        return self.state == "healthy"


def _at(timestamp: float | None) -> datetime | None:
    return None if timestamp is None else datetime.fromtimestamp(timestamp, tz=UTC)


def current_health(cluster: Cluster, live: ClusterHealth | None) -> Health:
    """The newest observation of ``cluster``: its recorded probe or ``live`` breaker state. Reads only."""
    breaker = live.state if live else None
    if live is not None and live.state == "open":
        return Health("unreachable", _at(live.last_failure_at), "live", live.last_error or "", breaker)
    seen: list[tuple[datetime, bool, str, Literal["probe", "live"]]] = []
    if cluster.last_probe_at is not None:
        seen.append((cluster.last_probe_at, cluster.healthy, cluster.last_error, "probe"))
    if live is not None:
        if (success := _at(live.last_success_at)) is not None:
            seen.append((success, True, "", "live"))
        if (failure := _at(live.last_failure_at)) is not None:
            seen.append((failure, False, live.last_error or "", "live"))
    if not seen:
        return Health("unknown", None, "", "", breaker)
    when, ok, error, source = max(seen, key=lambda s: s[0])
    return Health("healthy" if ok else "unreachable", when, source, "" if ok else error, breaker)


def live_health(cluster: Cluster) -> ClusterHealth | None:
    """This process's breaker state for ``cluster``, if it has talked to it (no I/O, no writes)."""
    pool = runtime.client_pool()
    return pool.health(cluster.name) if cluster.name in pool.names() else None


def health_of(cluster: Cluster) -> Health:
    health = current_health(cluster, live_health(cluster))
    stale = cache_staleness(cluster)
    return replace(health, stale_seconds=stale) if stale is not None else health


def member_freshness() -> dict[str, Health]:
    """Each member cluster's health, for pages that show per-cluster data from the watch caches: beside that data
    they name a cluster that is unreachable or whose cache has heard nothing lately (reads only, no I/O)."""
    return {cluster.name: health_of(cluster) for cluster in Cluster.objects.members()}


def cache_staleness(cluster: Cluster) -> float | None:
    """Seconds this process's watch cache of ``cluster`` has heard nothing, when past WATCH_STALE_SECONDS (the
    pages then say its data is stale); None when fresh or not cached here."""
    registries = [runtime.cache_registry(), runtime.host_cache_registry()]
    for registry in registries:
        if cluster.name in registry.names():
            cache = registry.get(cluster.name)
            return staleness(cache) if is_stale(cache) else None
    return None


def check_cluster(cluster: Cluster) -> str:
    """GET /version through the cluster's breaker; ConnectionError when it does not answer. Records
    nothing in the registry (the breaker remembers the outcome for this process)."""
    pool = runtime.pool_for(cluster)
    try:
        return pool.probe(cluster.name)
    except CircuitOpen as exc:
        raise ConnectionError(str(exc)) from exc
    except (ApiException, ConfigException, HTTPError, OSError) as exc:
        raise ConnectionError(f"{type(exc).__name__}: {exc}") from exc


def probe_cluster(cluster: Cluster, *, actor: Any = None) -> str:
    """``check_cluster``, recording the result on the registry row (tasks and explicit POSTs only). A probe a
    person asked for (``actor``) is audited: it rewrites the row's health, which pages and placement read."""
    try:
        version = check_cluster(cluster)
    except ConnectionError as exc:
        services.record_probe(cluster, ok=False, error=str(exc), actor=actor)
        raise
    services.record_probe(cluster, ok=True, version=version, actor=actor)
    return version


def staleness(cache: WatchCache) -> float | None:
    """Seconds since the stalest of a cache's watches last heard from its apiserver (a list, a watch opened or
    ended, any event or bookmark); None before every watch has had contact once."""
    contacts = [s.last_contact_at for s in cache.stats().values()]
    if not contacts or any(c is None for c in contacts):
        return None
    return max(0.0, time.time() - min(c for c in contacts if c is not None))


def is_stale(cache: WatchCache) -> bool:
    """What pages show as "stale": no word from the cluster for WATCH_STALE_SECONDS (a healthy watch renews every
    WATCH_TIMEOUT_SECONDS even when nothing changes)."""
    seconds = staleness(cache)
    return seconds is not None and seconds > settings.WATCH_STALE_SECONDS


def cluster_checks() -> list[tuple[str, Callable[[], str]]]:
    """Readiness checks, one per cluster: they probe but never write (``/readyz`` is a GET)."""
    return [(c.name, lambda c=c: check_cluster(c)) for c in Cluster.objects.all()]


def check_host_sync() -> str:
    """The members whose MemberCluster the hosts do not hold as the registry says (the sync tasks' last word):
    an edit that never reached the host leaves placement on stale attributes. Reads the registry only."""
    failing = Cluster.objects.members().exclude(host_sync_error="").values_list("name", "host_sync_error")
    if failing:
        raise RuntimeError("; ".join(f"{name}: {error}" for name, error in failing))
    return "every member's MemberCluster matches the registry"


def not_synced(name: str, cache: WatchCache | None) -> str:
    """What a page or the API says of ``name``'s cache that is not synced (everyone reads it): never the watch's
    error text, which can name the apiserver's address (admins see it on the cluster's page). A cache that had
    heard every watch once and then lost its apiserver shows old data, not missing data: "stale since <time>"."""
    why = "cannot reach its apiserver" if cache is not None and cache.last_error else "starting"
    contacts = [s.last_contact_at for s in cache.stats().values()] if hasattr(cache, "stats") else []
    if contacts and all(c is not None for c in contacts):
        since = datetime.fromtimestamp(min(contacts), UTC).strftime("%H:%M:%S UTC")
        return f"{name}: stale since {since} ({why})"
    return f"{name}: cache not synced yet ({why})"
