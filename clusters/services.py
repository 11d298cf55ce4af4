"""Named write actions on the cluster registry: attribute edits, pool edits, registration, probes.

Every change is validated here (so the page, the API and the management commands agree), written in
one transaction, and audited with before/after.

Granted quota never exceeds what the region's schedulable member pools hold (``projects.grants``), whatever
order a platform admin edits things in. The one rule: an edit that lowers what a tier's pools hold across
the region (a pool shrink, closing a member to scheduling, re-registering a member as a host) is refused,
resource by resource, when the tier's grants would no longer fit, naming the tier, what its pools would
hold and what is granted; lower the grants or grow other pools first. An edit that lowers nothing is
always allowed, even when the region is already over-granted: growing a pool, re-opening a member, editing
the pools of a member that is not schedulable (they are not part of the region's capacity then, and
re-opening it later only adds them back). Draining a member whose capacity is promised is therefore refused
up front rather than allowed and caught at the re-enable: that would leave the region over-granted in
between, and refusing a re-enable that gives capacity back would only make it worse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from base import audit
from base.errors import Invalid, NotFound
from base.queueing import enqueue
from clusters.models import Cluster, ClusterPool, FederationRole, PoolKind
from pincompute.grants import TIER_POOL_KINDS, Pool, PoolShortfall, shrink_violation, tier_capacity
from pincompute.quantity import (
    QuantityError,
    Resources,
    format_amount,
    format_cpu,
    format_memory,
    parse_cpu,
    parse_gpu,
    parse_memory,
)
from pincompute.tiers import Tier

_LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
_FAMILY = re.compile(r"^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
EDITABLE_FIELDS = ("region", "zone", "hardware_families", "labels", "taints", "schedulable")


@dataclass(frozen=True)
class PoolInput:
    cpu: str
    memory: str
    gpu: str


def snapshot(cluster: Cluster) -> dict[str, Any]:
    return {
        "region": cluster.region,
        "zone": cluster.zone,
        "hardware_families": list(cluster.hardware_families),
        "labels": dict(cluster.labels),
        "taints": list(cluster.taints),
        "schedulable": cluster.schedulable,
    }


def pool_snapshot(pool: ClusterPool) -> dict[str, str]:
    return {"cpu": format_cpu(pool.cpu_milli), "memory": format_memory(pool.memory_bytes), "gpu": str(pool.gpu)}


def _items(text: str) -> list[str]:
    return [item.strip() for item in re.split(r"[,\n]", text or "") if item.strip()]


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    """Validate structured labels (API) as the page's text form is validated."""
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in [*labels, *labels.values()]):
        raise Invalid.on_fields({"labels": "Labels are a mapping of text keys to text values."})
    for key, value in labels.items():
        if not _LABEL_KEY.fullmatch(key):
            raise Invalid.on_fields({"labels": f"{key!r} is not a valid label key."})
        if len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
            raise Invalid.on_fields({"labels": f"The value of {key} ({value!r}) is not a valid label value."})
    return dict(labels)


def parse_labels(text: str) -> dict[str, str]:
    """`key=value` pairs separated by commas or newlines."""
    labels: dict[str, str] = {}
    for item in _items(text):
        if "=" not in item:
            raise Invalid.on_fields({"labels": f"{item!r} is not key=value."})
        key, value = (part.strip() for part in item.split("=", 1))
        labels[key] = value
    return check_labels(labels)


def check_taints(taints: list[dict[str, str]]) -> list[dict[str, str]]:
    """Validate structured taints ({key, value?, effect}); returns them normalised."""
    if not isinstance(taints, list | tuple) or not all(
        isinstance(t, dict) and all(isinstance(v, str) for v in t.values()) for t in taints
    ):
        raise Invalid.on_fields({"taints": "Taints are a list of {key, value, effect} with text values."})
    out: list[dict[str, str]] = []
    for taint in taints:
        key, value, effect = taint.get("key", ""), taint.get("value", ""), taint.get("effect", "")
        shown = f"{key}{'=' + value if value else ''}:{effect}"
        if effect not in TAINT_EFFECTS:
            raise Invalid.on_fields(
                {"taints": f"{shown!r}: write key=value:Effect with Effect one of {', '.join(TAINT_EFFECTS)}."}
            )
        if not _LABEL_KEY.fullmatch(key) or (value and not _LABEL_VALUE.fullmatch(value)):
            raise Invalid.on_fields({"taints": f"{shown!r}: the key or value is not a valid label key/value."})
        out.append({"key": key, "value": value, "effect": effect} if value else {"key": key, "effect": effect})
    return out


def parse_taints(text: str) -> list[dict[str, str]]:
    """`key=value:Effect` (value optional) separated by commas or newlines."""
    taints = []
    for item in _items(text):
        body, _, effect = item.rpartition(":")
        key, _, value = body.partition("=")
        taints.append({"key": key, "value": value, "effect": effect if body else ""})
    return check_taints(taints)


def check_families(families: list[str]) -> list[str]:
    if not isinstance(families, list | tuple) or not all(isinstance(f, str) for f in families):
        raise Invalid.on_fields({"hardware_families": "Hardware families are a list of names."})
    unique = sorted({f.strip() for f in families if f.strip()})
    bad = [f for f in unique if not _FAMILY.fullmatch(f)]
    if bad:
        raise Invalid.on_fields({"hardware_families": f"{', '.join(bad)}: use lowercase letters, digits and '-'."})
    return unique


def parse_families(text: str) -> list[str]:
    return check_families(re.split(r"[,\s]+", text or ""))


def attributes_from_text(data: dict[str, Any]) -> dict[str, Any]:
    """The page's text fields (families, labels, taints as lines) -> structured attribute changes."""
    return {
        "region": data["region"],
        "zone": data["zone"],
        "hardware_families": parse_families(data["hardware_families"]),
        "labels": parse_labels(data["labels"]),
        "taints": parse_taints(data["taints"]),
        "schedulable": data["schedulable"],
    }


def _is_location(value: Any) -> bool:
    """A region or zone name: 1-63 lowercase letters, digits and '-' (surrounding blanks ignored)."""
    return isinstance(value, str) and 0 < len(value.strip()) <= 63 and bool(_FAMILY.fullmatch(value.strip()))


def _validate_attributes(changes: dict[str, Any]) -> dict[str, Any]:
    """Every attribute change checked and normalised here, whichever page, API or command sent it."""
    errors: dict[str, str] = {}
    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        errors[unknown[0]] = f"{', '.join(unknown)} cannot be edited here."
    for name in ("region", "zone"):
        if name in changes and not _is_location(changes[name]):
            errors[name] = "Use 1-63 lowercase letters, digits and '-'."
    if "schedulable" in changes and not isinstance(changes["schedulable"], bool):
        errors["schedulable"] = "Schedulable is true or false."
    if errors:
        raise Invalid.on_fields(errors)
    checked = dict(changes)
    for name, check in (("hardware_families", check_families), ("labels", check_labels), ("taints", check_taints)):
        if name in checked:
            checked[name] = check(checked[name])
    return checked


@transaction.atomic
def update_cluster_attributes(cluster_id: int, changes: dict[str, Any], *, actor: Any) -> Cluster:
    """Apply attribute ``changes`` (validated). Closing a member to scheduling takes its pools out of the
    region's capacity: refused, naming each tier left short, when the grants would no longer fit (module doc);
    re-opening one only adds capacity and is always allowed."""
    changes = _validate_attributes(changes)
    cluster = Cluster.objects.select_for_update().filter(pk=cluster_id).first()
    if cluster is None:
        raise NotFound("No such cluster.")
    before = snapshot(cluster)
    for name, value in changes.items():
        setattr(cluster, name, value.strip() if isinstance(value, str) else value)
    after = snapshot(cluster)
    lowered = _region_lowered_by(cluster.save)
    if lowered:
        field = next((f for f in ("schedulable", "region") if before[f] != after[f]), "schedulable")
        doing = {"schedulable": "stop being schedulable", "region": f"move to region {cluster.region}"}[field]
        raise Invalid.on_fields({field: _leaving_message(cluster.name, doing, lowered)})
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


GrantTotals = Callable[[], Mapping[Tier, Resources]]
_grant_totals: list[GrantTotals] = []


ClusterRegistered = Callable[[int], None]
_on_registered: list[ClusterRegistered] = []


def on_cluster_registered(callback: ClusterRegistered) -> None:
    """Registered once by the projects app: called with a new cluster's id after its registration
    commits, so every existing project is provisioned there at once (not only at the next reconcile)."""
    _on_registered[:] = [callback]


def provide_grant_totals(provider: GrantTotals) -> None:
    """Registered once by the projects app (clusters may not import projects): what the region has
    granted per tier, which the pools of that tier must keep holding."""
    _grant_totals[:] = [provider]


def grant_totals() -> dict[Tier, Resources]:
    totals = {tier: Resources() for tier in Tier}
    for provider in _grant_totals:
        totals.update(provider())
    return totals


def region_pools() -> list[Pool]:
    """Every pool of the schedulable member clusters: what regional grants are made from."""
    rows = ClusterPool.objects.filter(cluster__role=FederationRole.MEMBER, cluster__schedulable=True)
    return [
        Pool(cluster, kind, Resources(cpu, mem, gpu))
        for cluster, kind, cpu, mem, gpu in rows.values_list(
            "cluster__name", "kind", "cpu_milli", "memory_bytes", "gpu"
        )
    ]


def _region_lowered_by(write: Callable[[], None]) -> dict[Tier, list[PoolShortfall]]:
    """Run ``write`` (a registry change, inside the caller's transaction) and answer, per tier, the resources
    whose capacity across the region it lowered below what the tier has granted ({} when it may stay).

    The region's pools are read before and after the write (``region_pools`` is the one definition of what
    counts), every pool row locked first in primary-key order, as grant changes lock them: a grant change and
    another registry edit wait for this one, so none of them judges a capacity this one is changing. A caller
    that gets shortfalls raises, and its transaction rolls the write back."""
    lock_pools(Tier)
    before = region_pools()
    write()
    after = region_pools()
    grants = grant_totals()
    lowered: dict[Tier, list[PoolShortfall]] = {}
    for tier in TIER_POOL_KINDS:
        was = tier_capacity(before, tier).amounts()
        short = [
            s
            for s in shrink_violation(tier_capacity(after, tier), grants.get(tier, Resources()))
            if s.pool < was[s.resource]
        ]
        if short:
            lowered[tier] = short
    return lowered


def _shortfall_text(tier: Tier, shortfall: PoolShortfall, *, unit: bool) -> str:
    """'the Reserved pools of the region would hold 648, 352 below the 1000 already granted in Reserved' (with
    the resource named after each amount when ``unit``)."""
    name = f" {shortfall.resource}" if unit else ""
    pools = "every pool" if tier is Tier.PREEMPTIBLE else f"the {tier.value} pools"

    def fmt(amount: int) -> str:
        return format_amount(shortfall.resource, amount)

    return (
        f"{pools} of the region would hold {fmt(shortfall.pool)}{name}, {fmt(shortfall.below_by)} below the "
        f"{fmt(shortfall.granted)}{name} already granted in {tier.value}"
    )


def _leaving_message(cluster: str, doing: str, lowered: Mapping[Tier, list[PoolShortfall]]) -> str:
    """Why ``cluster`` cannot ``doing`` (stop being schedulable...): every tier and resource it would leave short."""
    texts = [_shortfall_text(tier, s, unit=True) for tier, shortfalls in lowered.items() for s in shortfalls]
    return (
        f"{cluster} cannot {doing}: without its pools, {'; '.join(texts)}. "
        "Lower those grants, or grow other members' pools, first."
    )


def lock_pools(tiers: Iterable[Tier]) -> None:
    """Lock the pool rows ``tiers`` grant from, in primary-key order (no deadlock between lockers),
    until the transaction ends. Grant changes call this before reading the totals they check."""
    kinds = sorted({kind for tier in tiers for kind in TIER_POOL_KINDS[tier]})
    list(ClusterPool.objects.select_for_update().filter(kind__in=kinds).order_by("pk").values_list("pk", flat=True))


def parse_pool(data: PoolInput) -> Resources:
    errors: dict[str, str] = {}
    values: dict[str, int] = {}
    for field, column, parser, example in (
        ("cpu", "cpu_milli", parse_cpu, "64 or 64000m"),
        ("memory", "memory_bytes", parse_memory, "256Gi"),
        ("gpu", "gpu", parse_gpu, "8"),
    ):
        raw = str(getattr(data, field)).strip()
        if not raw:
            errors[field] = f"Give a quantity (0 for none), for example {example}."
            continue
        try:
            amount = parser(raw)
        except QuantityError as exc:
            errors[field] = f"{raw!r} is not a quantity ({exc}); for example {example}."
            continue
        _, top = connection.ops.integer_field_range(ClusterPool._meta.get_field(column).get_internal_type())
        if amount < 0:
            errors[field] = "Capacity cannot be negative."
        elif amount > top:
            errors[field] = f"{raw!r} is more than the registry can store."
        values[field] = amount
    if errors:
        raise Invalid.on_fields(errors)
    return Resources(cpu_milli=values["cpu"], memory_bytes=values["memory"], gpu=values["gpu"])


def _shrink_errors(pool: ClusterPool, lowered: Mapping[Tier, list[PoolShortfall]]) -> dict[str, str]:
    """Per resource the pool edit lowered below the grants: why the tiers' grants would no longer fit."""
    label = PoolKind(pool.kind).label
    errors: dict[str, list[str]] = {}
    for tier, shortfalls in lowered.items():
        for s in shortfalls:
            errors.setdefault(s.resource, []).append(_shortfall_text(tier, s, unit=False))
    return {
        name: f"The {label} cannot shrink below the quota already granted: {'; '.join(texts)}."
        for name, texts in errors.items()
    }


@transaction.atomic
def update_pool(cluster_id: int, kind: str, data: PoolInput, *, actor: Any) -> ClusterPool:
    """Set one pool's capacity. Grants are regional, so a shrink is refused when a tier's grants would
    no longer fit that tier's pools summed over the schedulable members (see the module doc); the pools
    of a member that is not schedulable are not part of that sum, before or after."""
    if kind not in PoolKind.values:
        raise Invalid.on_fields({"kind": f"{kind!r} is not a pool; use one of {', '.join(PoolKind.values)}."})
    cluster = Cluster.objects.select_for_update().filter(pk=cluster_id).first()
    if cluster is None:
        raise NotFound("No such cluster.")
    new = parse_pool(data)
    lock_pools(Tier)  # before this pool's row, in the order grant changes lock them
    pool, _ = ClusterPool.objects.select_for_update().get_or_create(cluster=cluster, kind=kind)
    before = pool_snapshot(pool)
    pool.cpu_milli, pool.memory_bytes, pool.gpu = new.cpu_milli, new.memory_bytes, new.gpu
    errors = _shrink_errors(pool, _region_lowered_by(pool.save))
    if errors:
        raise Invalid.on_fields(errors)
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
        if not _is_location(value)
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
    lowered = {} if created else _region_lowered_by(cluster.save)  # a refresh may turn a member into a host
    if lowered:
        raise Invalid.on_fields({"role": _leaving_message(name, "stop being a member", lowered)})
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
        cluster_id = cluster.pk
        for callback in _on_registered:
            transaction.on_commit(lambda callback=callback: callback(cluster_id))
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
