"""``/metrics`` for Prometheus: the counters of every worker process (``base.metrics``), plus what this process holds,
read when scraped (``ProcessState``): watch-cache objects, their memory estimate and staleness per cluster, each
cluster's circuit breaker, and the time the cyclic GC stopped the process (``base.gcpauses``). Nothing polls; a
scrape costs a look at the caches' counters and a small sample.

prometheus-client's standard process and Python families (``base.metrics.STANDARD``) come from the process that
answers.

Who may scrape: a holder of ``METRICS_TOKEN`` (``Authorization: Bearer``; defaults to ``READYZ_PROBE_TOKEN``), a
platform admin signed in or with a personal API token (read scope is enough), as for /readyz's details. Anyone else,
a developer's API token included, gets a 404 with the one JSON error body, no data.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder
from prometheus_client.registry import Collector

from base import gcpauses
from base.api import json_error
from base.metrics_hooks import collected
from clusters import runtime
from clusters.health import staleness
from clusters.kube.cache import WatchCache
from console.views.health import may_see_details

SAMPLE = 50  # objects per kind whose deep size stands for the kind's average
BREAKER_STATES = ("closed", "half_open", "open")


def deep_size(obj: object, seen: set[int]) -> int:
    """Bytes of ``obj`` and everything it holds that ``seen`` has not counted yet (shared parts count once)."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, list | tuple | set | frozenset):
        size += sum(deep_size(item, seen) for item in obj)
    return size


def memory_estimate(cache: WatchCache) -> float:
    """Bytes the cache's objects hold, estimated: per kind, the objects' count times the average deep size of a
    sample of ``SAMPLE`` (parts shared within the sample counted once; the store's indexes not counted)."""
    total = 0.0
    for kind, stats in cache.stats().items():
        if stats.objects:
            sample, _ = cache.page(kind, limit=SAMPLE)
            if sample:
                seen: set[int] = set()
                total += stats.objects * sum(deep_size(obj, seen) for obj in sample) / len(sample)
    return total


class ProcessState(Collector):
    """This process's watch caches and breakers, per cluster (every uvicorn worker keeps its own)."""

    def collect(self) -> Iterable[Metric]:
        objects = GaugeMetricFamily(
            "pinconsole_watch_cache_objects", "Objects in this process's watch cache", labels=["cluster", "kind"]
        )
        memory = GaugeMetricFamily(
            "pinconsole_watch_cache_memory_bytes", "Estimated bytes of a cluster's cached objects", labels=["cluster"]
        )
        stale = GaugeMetricFamily(
            "pinconsole_watch_cache_staleness_seconds",
            "Seconds since the stalest watch of the cluster last heard from its apiserver",
            labels=["cluster"],
        )
        synced = GaugeMetricFamily(
            "pinconsole_watch_cache_synced", "1 when every watch of the cluster has listed", labels=["cluster"]
        )
        for registry in (runtime.cache_registry(), runtime.host_cache_registry()):
            for name in registry.names():
                cache = registry.get(name)
                for kind, stats in cache.stats().items():
                    objects.add_metric([name, kind], stats.objects)
                memory.add_metric([name], memory_estimate(cache))
                if (seconds := staleness(cache)) is not None:
                    stale.add_metric([name], seconds)
                synced.add_metric([name], 1.0 if cache.synced else 0.0)
        breaker = GaugeMetricFamily(
            "pinconsole_cluster_breaker_state",
            "This process's circuit breaker of a cluster: 1 for its current state",
            labels=["cluster", "state"],
        )
        pool = runtime.client_pool()
        for name in pool.names():
            current = pool.health(name).state
            for state in BREAKER_STATES:
                breaker.add_metric([name, state], 1.0 if state == current else 0.0)
        yield from (objects, memory, stale, synced, breaker, *gc_pauses())


def gc_pauses() -> tuple[Metric, ...]:
    """This process's cyclic-GC collections and the time they stopped it, per generation (2: full)."""
    collections = CounterMetricFamily(
        "pinconsole_gc_collections", "Cyclic GC collections of this process", labels=["generation"]
    )
    seconds = CounterMetricFamily(
        "pinconsole_gc_pause_seconds",
        "Time this process's cyclic GC collections stopped it (every thread waits)",
        labels=["generation"],
    )
    longest = GaugeMetricFamily(
        "pinconsole_gc_pause_longest_seconds",
        "The longest collection of this process since it started",
        labels=["generation"],
    )
    for generation, pauses in gcpauses.PAUSES.items():
        collections.add_metric([str(generation)], pauses.collections)
        seconds.add_metric([str(generation)], pauses.seconds)
        longest.add_metric([str(generation)], pauses.longest)
    return collections, seconds, longest


@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    if not may_see_details(request, settings.METRICS_TOKEN):
        return json_error(request, 404, "not_found", "Not found.")
    encode, content_type = choose_encoder(request.headers.get("Accept", ""))  # OpenMetrics when asked for
    return HttpResponse(encode(collected(ProcessState())), content_type=content_type)
