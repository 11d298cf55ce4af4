"""Named write actions on the cluster registry: attribute edits, pool edits, registration, probes.

Each is ``verb_noun(target, *, actor)``: validated (``clusters.attributes``, so the page, the API and the management
commands agree), written in one transaction, audited with before/after, and followed on the host once it commits.
An edit is refused with every problem at once: what the input says, what the member's nodes cannot hold or are not
(``clusters.node_fit``), and what lowers the region's pools below the grants (``clusters.capacity``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from base import audit
from base.errors import Invalid, NotFound
from base.queueing import enqueue
from clusters.attributes import (
    PoolInput,
    check_attributes,
    check_families,
    check_labels,
    is_location,
    parse_pool,
    pool_snapshot,
    snapshot,
)
from clusters.capacity import leaving_message, lock_pools, region_lowered_by, shrink_errors
from clusters.hooks import project_hooks
from clusters.models import Cluster, ClusterPool, FederationRole, PoolKind
from clusters.node_fit import pool_errors, zone_error
from pincompute.quantity import Resources
from pincompute.tiers import Tier


@transaction.atomic
def update_cluster_attributes(
    cluster_id: int, changes: dict[str, Any], *, actor: Any, parse_errors: Mapping[str, str] | None = None
) -> Cluster:
    """Apply attribute ``changes`` (validated), or refuse them with every problem at once: the input's own
    (``parse_errors``: what the page's text fields could not even parse), a zone none of the member's nodes is
    in (``clusters.node_fit``), and closing a member to scheduling when it takes capacity the grants need: its
    pools leave the region's capacity, refused naming each tier left short (``clusters.capacity``); re-opening
    one only adds capacity and is always allowed."""
    checked, errors = check_attributes(changes)
    errors = {**(parse_errors or {}), **errors}
    cluster = Cluster.objects.select_for_update().filter(pk=cluster_id).first()
    if cluster is None:
        raise NotFound("No such cluster.")
    if "zone" in checked and "zone" not in errors:
        moved = zone_error(cluster, checked["zone"].strip())
        if moved:
            errors["zone"] = f"{cluster.name} cannot move to zone {checked['zone'].strip()}: {moved}"
    before = snapshot(cluster)
    for name, value in checked.items():
        setattr(cluster, name, value.strip() if isinstance(value, str) else value)
    after = snapshot(cluster)
    lowered = region_lowered_by(cluster.save)  # rolled back with the transaction when anything is refused
    if lowered:
        field = next((f for f in ("schedulable", "region") if before[f] != after[f]), "schedulable")
        doing = {"schedulable": "stop being schedulable", "region": f"move to region {cluster.region}"}[field]
        errors.setdefault(field, leaving_message(cluster.name, doing, lowered))
    if errors:
        raise Invalid.on_fields(errors)
    old, new = audit.changed_fields(before, after)
    if old or new:
        audit.record(
            "cluster.update",
            actor=actor,
            target_kind="Cluster",
            target_name=cluster.name,
            cluster=cluster.name,
            before=old,
            after=new,
            summary=f"Changed {', '.join(sorted(new))}",
        )
        follow_on_host(cluster)
    return cluster


def follow_on_host(cluster: Cluster) -> None:
    """Once the transaction commits, queue the host's copy of this registry change: a member's
    ``MemberCluster`` object (``clusters.tasks.sync_member_cluster``), or, for a host, the whole pass. A host
    that is down never fails the saved edit: the task logs it and the periodic pass applies it later."""
    cluster_id, is_host = cluster.pk, cluster.role == FederationRole.HOST
    transaction.on_commit(lambda: _queue_sync(cluster_id, everything=is_host))


def _queue_sync(cluster_id: int, *, everything: bool) -> None:
    from clusters.tasks import sync_member_cluster, sync_member_clusters

    if everything:
        enqueue(sync_member_clusters)
    else:
        enqueue(sync_member_cluster, cluster_id)


@transaction.atomic
def update_pool(cluster_id: int, kind: str, data: PoolInput, *, actor: Any) -> ClusterPool:
    """Set one pool's capacity, or refuse it with every resource's problem at once. A member's pools together
    cannot grow past what its schedulable nodes hold (``clusters.node_fit``). Grants are regional, so a shrink is
    refused when a tier's grants would no longer fit that tier's pools summed over the schedulable members
    (``clusters.capacity``); the pools of a member that is not schedulable are not part of that sum, before or
    after."""
    if kind not in PoolKind.values:
        raise Invalid.on_fields({"kind": f"{kind!r} is not a pool; use one of {', '.join(PoolKind.values)}."})
    cluster = Cluster.objects.select_for_update().filter(pk=cluster_id).first()
    if cluster is None:
        raise NotFound("No such cluster.")
    new = parse_pool(data)
    lock_pools(Tier)  # before this pool's row, in the order grant changes lock them
    pool, _ = ClusterPool.objects.select_for_update().get_or_create(cluster=cluster, kind=kind)
    before = pool_snapshot(pool)
    grown = new.exceeded_by(Resources(pool.cpu_milli, pool.memory_bytes, pool.gpu))
    pools = {p.kind: Resources(p.cpu_milli, p.memory_bytes, p.gpu) for p in cluster.pools.all()}
    overflow = pool_errors(cluster, kind, {**pools, kind: new}) if grown else {}
    errors = {name: text for name, text in overflow.items() if name in grown}  # a shrink toward fitting may stay
    pool.cpu_milli, pool.memory_bytes, pool.gpu = new.cpu_milli, new.memory_bytes, new.gpu
    for name, text in shrink_errors(pool, region_lowered_by(pool.save)).items():
        errors[name] = f"{errors[name]} {text}" if name in errors else text
    if errors:
        raise Invalid.on_fields(errors)  # the transaction rolls the pool back
    after = pool_snapshot(pool)
    if before != after:
        audit.record(
            "cluster.pool.update",
            actor=actor,
            target_kind="ClusterPool",
            target_name=f"{cluster.name}/{kind}",
            cluster=cluster.name,
            before=before,
            after=after,
        )
        if cluster.role == FederationRole.MEMBER:
            follow_on_host(cluster)
    return pool


@transaction.atomic
def register_cluster(
    *,
    name: str,
    region: str,
    zone: str,
    role: str,
    api_server: str,
    kubeconfig_path: str,
    kube_context: str,
    actor: Any = None,
    hardware_families: list[str] | None = None,
    labels: dict[str, str] | None = None,
) -> tuple[Cluster, bool]:
    """Create or refresh a registry entry from a kubeconfig context. Idempotent."""
    errors = {
        field: "Use 1-63 lowercase letters, digits and '-'."
        for field, value in (("region", region), ("zone", zone))
        if not is_location(value)
    }
    if role not in FederationRole.values:
        errors["role"] = f"{role!r} is not a role; use one of {', '.join(FederationRole.values)}."
    if errors:
        raise Invalid.on_fields(errors)
    region, zone = region.strip(), zone.strip()
    families, labels = check_families(hardware_families or []), check_labels(labels or {})
    defaults = {
        "region": region,
        "zone": zone,
        "role": role,
        "api_server": api_server,
        "kubeconfig_path": kubeconfig_path,
        "kube_context": kube_context,
    }
    cluster, created = Cluster.objects.select_for_update().get_or_create(name=name, defaults=defaults)
    before = None if created else {k: getattr(cluster, k) for k in defaults}
    if not created:
        for key, value in defaults.items():
            setattr(cluster, key, value)
    if created:
        cluster.hardware_families, cluster.labels = families, labels
    try:
        cluster.full_clean()
    except ValidationError as exc:
        raise Invalid.on_fields({field: " ".join(msgs) for field, msgs in exc.message_dict.items()}) from exc
    lowered = {} if created else region_lowered_by(cluster.save)  # a refresh may turn a member into a host
    if lowered:
        raise Invalid.on_fields({"role": leaving_message(name, "stop being a member", lowered)})
    if created:
        cluster.save()
    after = {k: getattr(cluster, k) for k in defaults}
    if created or before != after:
        audit.record(
            "cluster.register",
            actor=actor,
            target_kind="Cluster",
            target_name=name,
            cluster=name,
            before=before,
            after=after,
            summary="created" if created else "refreshed",
        )
        follow_on_host(cluster)
    if created:
        cluster_id, registered = cluster.pk, project_hooks().cluster_registered
        transaction.on_commit(lambda: registered(cluster_id))
    return cluster, created


def record_probe(cluster: Cluster, *, ok: bool, version: str = "", error: str = "", actor: Any = None) -> None:
    """Probe results are status: the periodic probes save them without an audit row; a probe a person asked for
    (``actor``) is audited with the health it found."""
    Cluster.objects.filter(pk=cluster.pk).update(
        healthy=ok, version=version or cluster.version, last_error=error[:500], last_probe_at=timezone.now()
    )
    if actor is not None:
        found = {"healthy": ok, "version": version, "error": error[:500]}
        before = {"healthy": cluster.healthy, "version": cluster.version, "error": cluster.last_error}
        result = f"Kubernetes {version}" if ok else "unreachable"
        audit.record(
            "cluster.probe",
            actor=actor,
            target_kind="Cluster",
            target_name=cluster.name,
            cluster=cluster.name,
            before=before,
            after=found,
            summary=f"probed {cluster.name}: {result}",
        )


def record_host_sync(outcomes: Mapping[str, str]) -> None:
    """Record each member's last MemberCluster sync (name: why it failed, "" once in sync). Status, as probes
    are: no audit row; a row is written only when its error changes or it had never been synced."""
    now = timezone.now()
    for name, error in outcomes.items():
        error = error[:500]
        rows = Cluster.objects.filter(name=name).exclude(host_sync_error=error, host_sync_at__isnull=False)
        rows.update(host_sync_error=error, host_sync_at=now)
