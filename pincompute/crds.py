"""CustomResourceDefinitions generated from the kind registry and the specs, plus a structural-schema checker.

The workload kinds' CRDs go to every member (``crd_manifests``); the platform's own kinds' CRDs go where
the registry says they are served (``platform_crd_manifests``: ProjectQuota on the host).

Generated, not hand-written, so the apiserver validates exactly the fields ``specs.validate`` knows.
The checker enforces the apiextensions.k8s.io/v1 structural rules the apiserver applies on create.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pincompute.federation.failover import FAILOVER_STATUS_FIELDS
from pincompute.federation.members import MEMBER_CLUSTER_SPEC, MEMBER_CLUSTER_STATUS_FIELDS
from pincompute.kinds import (
    MEMBER_CLUSTER,
    PLATFORM_KINDS,
    PROJECT_QUOTA,
    InstalledOn,
    KindInfo,
    PlatformKindInfo,
)
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.specs import KINDS, KindDef
from pincompute.specs.schema import DATE_TIME, Arr, Field, Int, Obj, Str, obj
from pincompute.tenancy import PROJECT_QUOTA_SPEC

_WHEN = "RFC 3339."
_CONDITION = obj(
    Field("type", Str(description="Ready, Progressing, Degraded, Admitted, Scheduled, Refused..."), required=True),
    Field("status", Str(enum=("True", "False", "Unknown"), description="Whether it holds."), required=True),
    Field("reason", Str(description="Why, as one CamelCase word a program can switch on.")),
    Field("message", Str(description="Why, for people.")),
    Field("lastTransitionTime", Str(format=DATE_TIME, description="When status last changed.")),
    Field("observedGeneration", Int(description="The spec generation it was judged against.")),
    description="One condition (Kubernetes API conventions).",
)


def _conditions(where: str) -> Field:
    return Field("conditions", Arr(items=_CONDITION, map_keys=("type",), description=f"{where}, one per type."))


_SHARD = obj(
    Field("name", Str(description="The native object's name (on a member) or empty.")),
    Field("cluster", Str(description="The member cluster (host objects only).")),
    Field("zone", Str(description="Its zone.")),
    Field("state", Str(description="Ready, Available, Succeeded..., else why not; Unknown while unreachable.")),
    Field("message", Str(description="What is wrong, when something is.")),
    Field("replicas", Int(description="Pods it should run.")),
    Field("readyReplicas", Int(description="Pods ready (0 while its member is unreachable).")),
    Field("updatedReplicas", Int(description="Pods at the current spec.")),
    Field("phase", Str(description="The shard's own status.phase.")),
    Field("active", Int(description="Pods running (jobs).")),
    Field("succeeded", Int(description="Pods finished successfully (jobs).")),
    Field("failed", Int(description="Pods failed (jobs).")),
    _conditions("The shard's own conditions"),
    Field("lastSeen", Str(description="When the member's shard status was last observed (RFC 3339; empty: never).")),
    Field("unreachableSince", Str(description="Set while the member cannot be reached: since when (RFC 3339).")),
    description="One shard: a native object on a member, or (host objects) a member cluster's copy.",
)
_PLACED = obj(
    Field("cluster", Str(description="The member cluster."), required=True),
    Field("zone", Str(description="Its zone.")),
    Field("region", Str(description="Its region.")),
    Field("shardIndex", Int(description="This shard's index (job sets cut over members).")),
    Field("shardCount", Int(description="How many shards in all.")),
    Field("replicas", Int(description="Replicas placed here.")),
    description="One member cluster chosen.",
)
_PLACEMENT = obj(
    Field("generation", Int(description="The spec generation this decision was made for.")),
    Field("decidedAt", Str(format=DATE_TIME, description=f"When it was decided. {_WHEN}")),
    Field("replacedAt", Str(description="The replace-placement request last honoured.")),
    Field("clusters", Arr(items=_PLACED, description="Where each shard runs.")),
    Field(
        "rejected",
        Arr(
            items=obj(
                Field("cluster", Str(description="The member cluster."), required=True),
                Field("reasons", Arr(items=Str(), description="Why it was left out.")),
                description="A member cluster left out.",
            ),
            description="Every member cluster left out, with why.",
        ),
    ),
    Field(
        "scores",
        Arr(
            items=obj(
                Field("cluster", Str(description="The member cluster."), required=True),
                Field("score", Str(description="Its score (higher is preferred).")),
                description="A member cluster's score.",
            ),
            description="How the candidates scored.",
        ),
    ),
    *FAILOVER_STATUS_FIELDS,
    description="The federation's placement (host objects only).",
)
_ADMISSION = obj(
    Field("generation", Int(description="The spec generation admitted.")),
    Field("specHash", Str(description="The admitted spec's hash (its ControllerRevision's).")),
    Field("tier", Str(description="The tier whose grant it is charged to.")),
    Field(
        "request",
        obj(
            Field("cpu", Str(description="CPU claimed (a quantity).")),
            Field("memory", Str(description="Memory claimed (a quantity).")),
            Field("nvidia.com/gpu", Str(description="GPUs claimed.")),
            Field("pods", Int(description="Pods claimed.")),
            description="The claim it holds on the project's grant.",
        ),
    ),
    Field(
        "scaler",
        obj(
            Field("target", Str(description="The PinApp it scales.")),
            Field("maxReplicas", Int(description="The largest maxReplicas admitted.")),
            description="A PinScaler's: the PinApp and the largest maxReplicas admitted (its PinApp's claim counts "
            "them).",
        ),
    ),
    description="What federation admission admitted (host objects only): a newer generation waits until it fits.",
)
STATUS = obj(
    Field("observedGeneration", Int(description="The spec generation this status describes.")),
    Field("phase", Str(description="One word: Running, Progressing, Queued, Paused, Stopped, Succeeded, Failed...")),
    Field(
        "replicas",
        Int(description="Pods this object should run: a shard's own on a member, every shard's on the host."),
    ),
    Field("readyReplicas", Int(description="Pods ready (the same scope as replicas).")),
    Field("updatedReplicas", Int(description="Pods at the current spec (the same scope as replicas).")),
    Field("selector", Str(description="The label selector of its pods, for the scale subresource (an HPA).")),
    Field("active", Int(description="Pods running (run-to-finish kinds).")),
    Field("succeeded", Int(description="Pods finished successfully (run-to-finish kinds).")),
    Field("failed", Int(description="Pods failed (run-to-finish kinds).")),
    Field("lastScheduleTime", Str(format=DATE_TIME, description=f"A cron job's last run. {_WHEN}")),
    Field("lastContainerRestart", Str(description="The restartContainer request last carried out (its requestedAt).")),
    _conditions("Ready, Progressing, Degraded; on the host also Admitted, Scheduled"),
    Field("shards", Arr(items=_SHARD, description="Per native object (member) or per member cluster (host).")),
    Field("placement", _PLACEMENT),
    Field("currentRevision", Str(description="The ControllerRevision of the accepted spec (host objects only).")),
    Field("admission", _ADMISSION),
    description="Observed state, written by the operator; never by users.",
)

_READY = {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'}
_ADMITTED = {"name": "Admitted", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Admitted")].status'}
_SCHEDULED = {"name": "Scheduled", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Scheduled")].status'}
_TIER = {"name": "Tier", "type": "string", "jsonPath": ".spec.tier"}
_AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
# Both read the status, whose scope is the object's own: a member's shard counts its own pods (spec.replicas is the
# whole workload's, the same on every shard), the host object every shard's. Read from spec, a healthy shard of 2
# showed "4" beside "2 available" on each member.
_REPLICAS = {
    "name": "Replicas",
    "type": "integer",
    "jsonPath": ".status.replicas",
    "description": "Pods this object should run: a member's shard its own, the host object every shard's.",
}
_AVAILABLE = {
    "name": "Available",
    "type": "integer",
    "jsonPath": ".status.readyReplicas",
    "description": "Of those, ready.",
}
_EXTRA_COLUMNS: dict[str, list[dict[str, str]]] = {
    "PinApp": [_REPLICAS, _AVAILABLE],
    "PinterestService": [_REPLICAS, _AVAILABLE],
    "PinterestDaemon": [{"name": "Ready Pods", "type": "integer", "jsonPath": ".status.readyReplicas"}],
    "PinScaler": [
        {"name": "Target", "type": "string", "jsonPath": ".spec.targetRef.name"},
        {"name": "Min", "type": "integer", "jsonPath": ".spec.minReplicas"},
        {"name": "Max", "type": "integer", "jsonPath": ".spec.maxReplicas"},
    ],
    "PinterestJobSet": [
        {"name": "Shards", "type": "integer", "jsonPath": ".spec.shards"},
        {"name": "Succeeded", "type": "integer", "jsonPath": ".status.succeeded"},
    ],
    "PinterestCronJob": [
        {"name": "Schedule", "type": "string", "jsonPath": ".spec.schedule"},
        {"name": "Last Schedule", "type": "date", "jsonPath": ".status.lastScheduleTime"},
    ],
    "PinterestTrainingJob": [
        {"name": "Framework", "type": "string", "jsonPath": ".spec.framework"},
        {"name": "Workers", "type": "integer", "jsonPath": ".spec.workers"},
    ],
    "PinPod": [{"name": "Phase", "type": "string", "jsonPath": ".status.phase"}],
}


def crd_manifest(definition: KindDef) -> dict[str, Any]:
    info = definition.info
    subresources: dict[str, Any] = {"status": {}}
    if info.scalable:
        subresources["scale"] = {
            "specReplicasPath": ".spec.replicas",
            "statusReplicasPath": ".status.replicas",
            "labelSelectorPath": ".status.selector",
        }
    return _crd(
        info,
        info.short_names,
        _root(definition.schema, STATUS, _about(info)),
        subresources,
        [_ADMITTED, _SCHEDULED, _READY, _TIER, *_EXTRA_COLUMNS.get(info.kind, []), _AGE],
    )


def _about(info: KindInfo) -> str:
    return (
        f"{info.description} Written on the host, where the federation admits, places and shards it; on each member "
        f"cluster it becomes {info.becomes}."
    )


def crd_manifests() -> list[dict[str, Any]]:
    """One CRD per workload kind, in registry order (what every member serves)."""
    return [crd_manifest(definition) for definition in KINDS.values()]


# The federation writes a ProjectQuota's status (what it has admitted); its shape is the federation's.
PLATFORM_STATUS = obj(
    Field("observedGeneration", Int(description="The spec generation this status describes.")),
    _conditions("Its conditions"),
    open=True,
    description="Observed state, written by the platform.",
)
_PLATFORM_SPECS: dict[str, Obj] = {PROJECT_QUOTA.kind: PROJECT_QUOTA_SPEC, MEMBER_CLUSTER.kind: MEMBER_CLUSTER_SPEC}
_PLATFORM_STATUS: dict[str, Obj] = {
    MEMBER_CLUSTER.kind: obj(
        *PLATFORM_STATUS.fields,
        *MEMBER_CLUSTER_STATUS_FIELDS,
        open=True,
        description="Observed state, written by the federation controller: reachability and nodes.",
    )
}
_PLATFORM_COLUMNS: dict[str, list[dict[str, str]]] = {
    PROJECT_QUOTA.kind: [{"name": "Project", "type": "string", "jsonPath": ".spec.project"}],
    MEMBER_CLUSTER.kind: [
        {"name": "Zone", "type": "string", "jsonPath": ".spec.zone"},
        _READY,
        {"name": "Nodes", "type": "integer", "jsonPath": ".status.nodeCount"},
        {"name": "Schedulable", "type": "boolean", "jsonPath": ".spec.schedulable"},
    ],
}


def platform_crd_manifest(info: PlatformKindInfo) -> dict[str, Any]:
    return _crd(
        info,
        info.short_names,
        _root(_PLATFORM_SPECS[info.kind], _PLATFORM_STATUS.get(info.kind, PLATFORM_STATUS), info.description),
        {"status": {}},
        [*_PLATFORM_COLUMNS.get(info.kind, []), _AGE],
        namespaced=info.namespaced,
    )


def platform_crd_manifests(installed_on: InstalledOn) -> list[dict[str, Any]]:
    """The CRDs of the platform's own kinds that ``installed_on`` clusters serve (the host: ProjectQuota,
    MemberCluster)."""
    return [platform_crd_manifest(info) for info in PLATFORM_KINDS.values() if info.installed_on is installed_on]


_API_VERSION = "The versioned schema of this object: pincompute.io/v1."
_KIND = "The kind of this object (CamelCase)."


def _root(spec: Obj, status: Obj, description: str) -> dict[str, Any]:
    return Obj(
        fields=(
            Field("apiVersion", Str(description=_API_VERSION)),
            Field("kind", Str(description=_KIND)),
            Field("metadata", Obj()),  # the apiserver's ObjectMeta: nothing but its type may be set here
            Field("spec", replace(spec, description=spec.description or "What the owner wants."), required=True),
            Field("status", status),
        ),
        description=description,
    ).openapi()


def _crd(
    info: KindInfo | PlatformKindInfo,
    short_names: tuple[str, ...],
    schema: dict[str, Any],
    subresources: dict[str, Any],
    columns: list[dict[str, str]],
    *,
    namespaced: bool = True,
) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": info.crd_name, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "spec": {
            "group": info.group,
            "scope": "Namespaced" if namespaced else "Cluster",
            "names": {
                "kind": info.kind,
                "listKind": info.list_kind,
                "plural": info.plural,
                "singular": info.singular,
                "shortNames": list(short_names),
                "categories": ["pincompute"],
            },
            "versions": [
                {
                    "name": info.version,
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": subresources,
                    "additionalPrinterColumns": columns,
                }
            ],
        },
    }


_FORBIDDEN = ("$ref", "definitions", "dependencies", "patternProperties", "additionalItems", "id", "$schema")
_TYPES = ("object", "array", "string", "integer", "number", "boolean")


def structural_problems(schema: Mapping[str, Any], path: str = "", root: bool = True) -> list[str]:
    """Why ``schema`` is not structural in the apiextensions.k8s.io/v1 sense ([] when it is)."""
    problems: list[str] = []
    where = path or "<root>"
    for key in _FORBIDDEN:
        if key in schema:
            problems.append(f"{where}: {key} is not allowed")
    if schema.get("uniqueItems") is True:
        problems.append(f"{where}: uniqueItems: true is not allowed")
    kind = schema.get("type")
    free = schema.get("x-kubernetes-preserve-unknown-fields") is True
    if schema.get("x-kubernetes-int-or-string") is True:
        if kind is not None:
            problems.append(f"{where}: x-kubernetes-int-or-string must not set a type")
    elif kind not in _TYPES:
        problems.append(f"{where}: every node needs a type, got {kind!r}")
    if root and kind != "object":
        problems.append("<root>: the root must be type object")
    if "properties" in schema and "additionalProperties" in schema:
        problems.append(f"{where}: properties and additionalProperties are mutually exclusive")
    if ("properties" in schema or "additionalProperties" in schema) and kind != "object":
        problems.append(f"{where}: properties need type object")
    if kind == "array" and not isinstance(schema.get("items"), Mapping):
        problems.append(f"{where}: an array needs a single items schema")
    for name in schema.get("required") or []:
        if name not in (schema.get("properties") or {}) and not free:
            problems.append(f"{where}: required field {name!r} is not a property")
    if "enum" in schema and kind == "string" and not all(isinstance(v, str) for v in schema["enum"]):
        problems.append(f"{where}: enum values must be strings")
    for name, child in (schema.get("properties") or {}).items():
        child_path = f"{path}.{name}" if path else name
        if root and name == "metadata" and set(child) - {"type", "properties"}:
            problems.append("metadata: only type (and name/generateName limits) may be set at the root")
        problems += structural_problems(child, child_path, root=False)
    if isinstance(schema.get("items"), Mapping):
        problems += structural_problems(schema["items"], f"{path}[]", root=False)
    if isinstance(schema.get("additionalProperties"), Mapping):
        problems += structural_problems(schema["additionalProperties"], f"{path}{{}}", root=False)
    if kind == "array" and schema.get("x-kubernetes-list-type") == "map":
        items = schema.get("items") or {}
        keys = schema.get("x-kubernetes-list-map-keys") or []
        if not keys:
            problems.append(f"{where}: a map list needs x-kubernetes-list-map-keys")
        for key in keys:
            known = (items.get("properties") or {}).get(key, {})
            if key not in (items.get("required") or []) and "default" not in known:
                problems.append(f"{where}: the map key {key!r} must be required in its items or have a default")
    for junctor in ("allOf", "anyOf", "oneOf", "not"):
        if junctor in schema and not (junctor == "anyOf" and _int_or_string(schema)):
            problems.append(f"{where}: {junctor} is not generated by this core and is not checked")
    return problems


def _int_or_string(schema: Mapping[str, Any]) -> bool:
    """The one ``anyOf`` the apiserver allows in a structural schema: beside ``x-kubernetes-int-or-string``."""
    return schema.get("x-kubernetes-int-or-string") is True and schema.get("anyOf") == [
        {"type": "integer"},
        {"type": "string"},
    ]
