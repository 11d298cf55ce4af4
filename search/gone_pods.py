"""Pods that are gone (deleted, finished and cleaned up, scaled down) but whose lines the log archive keeps: found
by name in search, labelled "gone", linking to their archived logs.

The archive is asked once per project for its streams' labels (``debugging.logs.archive.archived_streams``, the
project scope added there) and the answer kept for ``GONE_PODS_CACHE_SECONDS`` in the cache, so typing costs no
store call per keystroke. A platform admin who sees more than ``MAX_PROJECTS`` projects gets every project's streams
in one unscoped call (``archived_streams_everywhere``, admins only), cached the same way; anybody else seeing that
many is not searched for gone pods (that many store calls would cost more than the whole search).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.urls import reverse

from base.permissions import is_platform_admin
from clusters import runtime
from debugging.logs.archive import archived_streams, archived_streams_everywhere
from pincompute.errors import ServiceError
from search.ranking import rank
from search.sources import Candidate, Hit, Seen, candidate

MAX_PROJECTS = 20
EVERYWHERE_KEY = "search:gone-pods:everywhere"


def _pods_of(actor: Any, project: Seen) -> list[tuple[str, str, str]]:
    """(cluster, workload, pod) of the project's archived streams, cached; none while the archive cannot answer."""
    key = f"search:gone-pods:{project.pk}:{project.created_at.timestamp()}"  # a new project of the same id: new key
    found = cache.get(key)
    if found is None:
        try:
            streams = archived_streams(actor, project.name)
        except ServiceError:  # kept as none too: a store that is down must not cost every keystroke its timeout
            streams = []
        found = sorted({(s.get("cluster", ""), s.get("workload", ""), s["pod"]) for s in streams if s.get("pod")})
        cache.set(key, found, settings.GONE_PODS_CACHE_SECONDS)
    return list(found)


def _everywhere(actor: Any) -> dict[str, list[tuple[str, str, str]]]:
    """A platform admin's: every project's (cluster, workload, pod) by namespace, in one store call, cached."""
    found = cache.get(EVERYWHERE_KEY)
    if found is None:
        try:
            streams = archived_streams_everywhere(actor)
        except ServiceError:
            streams = []
        found = {}
        for s in streams:
            if s.get("pod") and s.get("namespace"):
                found.setdefault(s["namespace"], set()).add((s.get("cluster", ""), s.get("workload", ""), s["pod"]))
        found = {ns: sorted(pods) for ns, pods in found.items()}
        cache.set(EVERYWHERE_KEY, found, settings.GONE_PODS_CACHE_SECONDS)
    return dict(found)


def gone_pods(actor: Any, visible: dict[str, Seen], query: str) -> Iterator[Candidate]:
    if len(visible) > MAX_PROJECTS and not is_platform_admin(actor):
        return
    everywhere = _everywhere(actor) if len(visible) > MAX_PROJECTS else None
    caches = runtime.member_caches()
    for namespace, project in visible.items():
        held = everywhere.get(namespace, []) if everywhere is not None else _pods_of(actor, project)
        for cluster, workload, pod in held:
            found = rank(pod, query) if query in pod else None
            live = caches.get(cluster)
            if found is None or not workload or (live is not None and live.get("pods", namespace, pod) is not None):
                continue
            url = reverse("debugging:workload-archive", args=[namespace, workload]) + f"?pod={pod}&since=7d"
            hit = Hit("pod", pod, f"gone pod of {workload} on {cluster} in {project.name}", url, found, project.name)
            yield candidate(found, "pod", pod, lambda h=hit: h)
