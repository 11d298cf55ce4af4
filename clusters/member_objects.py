"""The registry's members as the federation sees them: one cluster-scoped ``MemberCluster`` object per member
cluster on every host cluster. The registry row becomes a ``MemberSpec`` in one place (``member_spec``); the
object is the core's ``member_cluster_manifest``, never written by hand here.

Every write is a server-side apply by name with the portal's field manager (``clusters.provision``), through
the host's circuit breaker (``clusters.remote``): idempotent, safe to repeat. Two callers:

- ``sync_member(host, cluster)``: one member after its registration or an edit of its attributes or pools
  (``clusters.tasks.sync_member_cluster``, queued by ``clusters.services`` once the edit commits).
- ``sync_host(host)``: the level-triggered pass (``clusters.tasks.sync_member_clusters``, on beat): one LIST
  of the host's MemberCluster objects, an apply for every member whose object is missing or differs, and a
  delete of the portal's object of a registered cluster that is no longer a member (re-registered as the
  host). A member the host refuses is reported on its own (``HostSync.failed``) and the others still applied.
  The registry has no removal; an object named after a cluster the registry does not know is left alone
  (someone else wrote it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from clusters import provision, remote
from clusters.models import Cluster, FederationRole
from pincompute.errors import ServiceError
from pincompute.federation.members import MemberSpec, member_cluster_manifest
from pincompute.kinds import MEMBER_CLUSTER
from pincompute.kube import rawapi
from pincompute.labels import MANAGED_SELECTOR
from pincompute.quantity import Resources

_TIMEOUT: rawapi.Timeout = (3.0, 20.0)


def member_spec(cluster: Cluster) -> MemberSpec:
    """What the registry knows about one member, as the federation's ``MemberSpec``."""
    pools = {pool.kind: Resources(pool.cpu_milli, pool.memory_bytes, pool.gpu) for pool in cluster.pools.all()}
    return MemberSpec(
        name=cluster.name,
        region=cluster.region,
        zone=cluster.zone,
        hardware_families=tuple(cluster.hardware_families),
        pools=pools,
        labels=dict(cluster.labels),
        taints=tuple(dict(taint) for taint in cluster.taints),
        schedulable=cluster.schedulable,
        cordoned=cluster.cordoned,
        drain_requested_at=cluster.drain_requested_at,
        drain_jobs_deadline=cluster.drain_jobs_deadline,
    )


def manifest_for(cluster: Cluster) -> dict[str, Any]:
    return member_cluster_manifest(member_spec(cluster))


def hosts() -> list[Cluster]:
    return list(Cluster.objects.filter(role=FederationRole.HOST))


@dataclass(frozen=True)
class HostSync:
    """What one pass changed on one host, and the members it could not write (name: why)."""

    host: str
    applied: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    failed: Mapping[str, str] = field(default_factory=dict)


def sync_member(host: Cluster, cluster: Cluster) -> str:
    """Make ``host`` hold ``cluster``'s MemberCluster (a member) or not hold it (no longer a member); returns
    ``applied`` or ``deleted``. Raises ``Unavailable`` (retry later) or ``Unprocessable`` (needs a human)."""
    where = f"MemberCluster {cluster.name} on {host.name}"
    api = remote.client(host, where)
    if cluster.role == FederationRole.MEMBER:
        manifest = manifest_for(cluster)
        remote.guarded(where, lambda: provision.apply_all(api, [manifest], call=_breaker(host)))
        return "applied"
    remote.guarded(where, lambda: remote.through_breaker(host, lambda: _delete(api, cluster.name)))
    return "deleted"


def sync_host(host: Cluster) -> HostSync:
    """The level-triggered pass on one host: apply what is missing or differs, delete what is no longer a
    member's; an object that already matches is not written. Each member is applied on its own, so one the
    host refuses (``failed``) never holds the others back. Raises when the host cannot be listed."""
    where = f"MemberCluster objects on {host.name}"
    api = remote.client(host, where)
    live = remote.guarded(where, lambda: remote.through_breaker(host, lambda: _list(api)))
    clusters = list(Cluster.objects.prefetch_related("pools"))
    wanted = [manifest_for(c) for c in clusters if c.role == FederationRole.MEMBER]
    stale = [m for m in wanted if not _matches(live.get(m["metadata"]["name"]), m)]
    gone = sorted(c.name for c in clusters if c.role != FederationRole.MEMBER and c.name in live)
    applied, failed = [], {}
    for manifest in stale:
        name = manifest["metadata"]["name"]
        try:
            remote.guarded(
                f"MemberCluster {name} on {host.name}",
                lambda m=manifest: provision.apply_all(api, [m], call=_breaker(host)),
            )
            applied.append(name)
        except ServiceError as exc:
            failed[name] = exc.message
    for name in gone:
        remote.guarded(where, lambda name=name: remote.through_breaker(host, lambda: _delete(api, name)))
    return HostSync(host.name, tuple(applied), tuple(gone), failed)


def _breaker(host: Cluster) -> Any:
    return lambda fn: remote.through_breaker(host, fn)


def _list(api: Any) -> dict[str, dict[str, Any]]:
    """The portal's MemberCluster objects on the host, by name (a cluster has a few dozen: one page)."""
    doc = rawapi.get_json(api, MEMBER_CLUSTER.collection_path, [("labelSelector", MANAGED_SELECTOR)], _TIMEOUT)
    return {str(item["metadata"]["name"]): item for item in doc.get("items") or ()}


def _matches(live: dict[str, Any] | None, wanted: dict[str, Any]) -> bool:
    if live is None or live.get("spec") != wanted["spec"]:
        return False
    labels = (live.get("metadata") or {}).get("labels") or {}
    return all(labels.get(k) == v for k, v in wanted["metadata"]["labels"].items())


def _delete(api: Any, name: str) -> bool:
    return provision.delete(api, MEMBER_CLUSTER.api_version, MEMBER_CLUSTER.kind, name)
