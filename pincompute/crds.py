"""CustomResourceDefinitions generated from the kind registry and the specs, plus a structural-schema checker.

The workload kinds' CRDs go to every member (``crd_manifests``); the platform's own kinds' CRDs go where
the registry says they are served (``platform_crd_manifests``: ProjectQuota on the host).

Generated, not hand-written, so the apiserver validates exactly the fields ``specs.validate`` knows.
The checker enforces the apiextensions.k8s.io/v1 structural rules the apiserver applies on create.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
from pincompute.specs.schema import Arr, Field, Int, Obj, Str, obj
from pincompute.tenancy import PROJECT_QUOTA_SPEC

_CONDITION = obj(
    Field("type", Str(), required=True),
    Field("status", Str(enum=("True", "False", "Unknown")), required=True),
    Field("reason", Str()),
    Field("message", Str()),
    Field("lastTransitionTime", Str()),
    Field("observedGeneration", Int()),
)
_SHARD = obj(
    Field("name", Str()),
    Field("cluster", Str()),
    Field("zone", Str()),
    Field("state", Str()),
    Field("message", Str()),
    Field("replicas", Int()),
    Field("readyReplicas", Int()),
    Field("updatedReplicas", Int()),
    Field("phase", Str()),
    Field("active", Int()),
    Field("succeeded", Int()),
    Field("failed", Int()),
    Field("conditions", Arr(items=_CONDITION)),
    Field("lastSeen", Str(description="When the member's shard status was last observed.")),
    Field("unreachableSince", Str(description="Set while the member cannot be reached.")),
)
_PLACED = obj(
    Field("cluster", Str(), required=True),
    Field("zone", Str()),
    Field("region", Str()),
    Field("shardIndex", Int()),
    Field("shardCount", Int()),
    Field("replicas", Int()),
)
_PLACEMENT = obj(
    Field("generation", Int(description="The spec generation this decision was made for.")),
    Field("decidedAt", Str()),
    Field("replacedAt", Str(description="The replace-placement request last honoured.")),
    Field("clusters", Arr(items=_PLACED, description="Where each shard runs.")),
    Field(
        "rejected",
        Arr(
            items=obj(Field("cluster", Str(), required=True), Field("reasons", Arr(items=Str()))),
            description="Every member cluster left out, with why.",
        ),
    ),
    Field("scores", Arr(items=obj(Field("cluster", Str(), required=True), Field("score", Str())))),
    description="The federation's placement (host objects only).",
)
_ADMISSION = obj(
    Field("generation", Int(description="The spec generation admitted.")),
    Field("specHash", Str(description="The admitted spec's hash (its ControllerRevision's).")),
    Field("tier", Str()),
    Field(
        "request",
        obj(
            Field("cpu", Str()),
            Field("memory", Str()),
            Field("nvidia.com/gpu", Str()),
            Field("pods", Int()),
            description="The claim it holds on the project's grant.",
        ),
    ),
    Field(
        "scaler",
        obj(
            Field("target", Str()),
            Field("maxReplicas", Int()),
            description="A PinScaler's: the PinApp and the largest maxReplicas admitted (its PinApp's claim counts "
            "them).",
        ),
    ),
    description="What federation admission admitted (host objects only): a newer generation waits until it fits.",
)
STATUS = obj(
    Field("observedGeneration", Int()),
    Field("phase", Str()),
    Field("replicas", Int()),
    Field("readyReplicas", Int()),
    Field("updatedReplicas", Int()),
    Field("selector", Str(description="Label selector string for the scale subresource.")),
    Field("active", Int()),
    Field("succeeded", Int()),
    Field("failed", Int()),
    Field("lastScheduleTime", Str()),
    Field("lastContainerRestart", Str()),
    Field("conditions", Arr(items=_CONDITION)),
    Field("shards", Arr(items=_SHARD)),
    Field("placement", _PLACEMENT),
    Field("currentRevision", Str(description="The ControllerRevision of the accepted spec (host objects only).")),
    Field("admission", _ADMISSION),
)

_READY = {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'}
_ADMITTED = {"name": "Admitted", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Admitted")].status'}
_SCHEDULED = {"name": "Scheduled", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Scheduled")].status'}
_TIER = {"name": "Tier", "type": "string", "jsonPath": ".spec.tier"}
_AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
_EXTRA_COLUMNS: dict[str, list[dict[str, str]]] = {
    "PinApp": [
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
        {"name": "Available", "type": "integer", "jsonPath": ".status.readyReplicas"},
    ],
    "PinterestService": [
        {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
        {"name": "Available", "type": "integer", "jsonPath": ".status.readyReplicas"},
    ],
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
        _root(definition.schema, STATUS),
        subresources,
        [_ADMITTED, _SCHEDULED, _READY, _TIER, *_EXTRA_COLUMNS.get(info.kind, []), _AGE],
    )


def crd_manifests() -> list[dict[str, Any]]:
    """One CRD per workload kind, in registry order (what every member serves)."""
    return [crd_manifest(definition) for definition in KINDS.values()]


# The federation writes a ProjectQuota's status (what it has admitted); its shape is the federation's.
PLATFORM_STATUS = obj(
    Field("observedGeneration", Int()),
    Field("conditions", Arr(items=_CONDITION)),
    open=True,
)
_PLATFORM_SPECS: dict[str, Obj] = {PROJECT_QUOTA.kind: PROJECT_QUOTA_SPEC, MEMBER_CLUSTER.kind: MEMBER_CLUSTER_SPEC}
_PLATFORM_STATUS: dict[str, Obj] = {
    MEMBER_CLUSTER.kind: obj(*PLATFORM_STATUS.fields, *MEMBER_CLUSTER_STATUS_FIELDS, open=True)
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
        _root(_PLATFORM_SPECS[info.kind], _PLATFORM_STATUS.get(info.kind, PLATFORM_STATUS)),
        {"status": {}},
        [*_PLATFORM_COLUMNS.get(info.kind, []), _AGE],
        namespaced=info.namespaced,
    )


def platform_crd_manifests(installed_on: InstalledOn) -> list[dict[str, Any]]:
    """The CRDs of the platform's own kinds that ``installed_on`` clusters serve (the host: ProjectQuota,
    MemberCluster)."""
    return [platform_crd_manifest(info) for info in PLATFORM_KINDS.values() if info.installed_on is installed_on]


def _root(spec: Obj, status: Obj) -> dict[str, Any]:
    return Obj(
        fields=(
            Field("apiVersion", Str()),
            Field("kind", Str()),
            Field("metadata", Obj()),
            Field("spec", spec, required=True),
            Field("status", status),
        )
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
    for junctor in ("allOf", "anyOf", "oneOf", "not"):
        if junctor in schema:
            problems.append(f"{where}: {junctor} is not generated by this core and is not checked")
    return problems
