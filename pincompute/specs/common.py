"""What every kind shares: identity fields, containers, pod-level fields and operation fields.

Schemas (for validation and CRDs) sit next to the frozen dataclasses they build, so a field is added
in one place. User sidecars become native sidecars, like the platform's own.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pincompute.kinds import default_tier
from pincompute.labels import HARDWARE_FAMILY_LABEL
from pincompute.quantity import GPU_RESOURCE, Resources, parse_cpu, parse_gpu, parse_memory
from pincompute.quota import DEFAULT_CONTAINER_REQUEST, pod_request
from pincompute.specs import checks as c
from pincompute.specs.config_sources import config_ref, file_source, key_ref
from pincompute.specs.schema import DATE_TIME, Arr, Bool, Field, Int, IntOrStr, MapOf, Obj, Str, obj
from pincompute.specs.security_context import CONTAINER_SECURITY_CONTEXT, POD_SECURITY_CONTEXT
from pincompute.tiers import Tier

RESERVED_PREFIX = "pincompute-"
HOST_NAMESPACES = ("hostNetwork", "hostPID", "hostIPC")

# ---- schemas -------------------------------------------------------------------------------------

_QUANTITY = "A Kubernetes quantity"


def _quantities(what: str) -> Obj:
    return obj(
        Field("cpu", IntOrStr(checks=(c.cpu_quantity,), description=f"{_QUANTITY} of CPU: 500m, 1, 2.5.")),
        Field("memory", IntOrStr(checks=(c.memory_quantity,), description=f"{_QUANTITY} of memory: 512Mi, 2Gi.")),
        Field(GPU_RESOURCE, IntOrStr(checks=(c.gpu_quantity,), description="Whole NVIDIA GPUs: 1, 2.")),
        description=what,
    )


_PATH = "An absolute path in the container."


CONTAINER = obj(
    Field("name", Str(checks=(c.container_name,), description="Unique in the pod (a DNS-1123 label)."), required=True),
    Field(
        "image",
        Str(checks=(c.image_ref,), description="Image reference: [registry/]repo[:tag][@digest]."),
        required=True,
    ),
    Field(
        "imagePullPolicy",
        Str(enum=("Always", "IfNotPresent", "Never"), description="When to pull; Kubernetes' default when unset."),
    ),
    Field("command", Arr(items=Str(), description="Replaces the image's ENTRYPOINT.")),
    Field("args", Arr(items=Str(), description="Replace the image's CMD.")),
    Field("workingDir", Str(checks=(c.absolute_path,), description=f"{_PATH} Default: the image's.")),
    Field(
        "env",
        Arr(
            items=obj(
                Field("name", Str(checks=(c.env_name,), description="The variable's name."), required=True),
                Field("value", Str(description="Its value; $(OTHER) expands an earlier variable.")),
                Field(
                    "valueFrom",
                    obj(
                        Field("secretKeyRef", key_ref("Secret")),
                        Field("configMapKeyRef", key_ref("ConfigMap")),
                        open=True,
                        description="A Kubernetes EnvVarSource: secretKeyRef or configMapKeyRef (a key of one of the "
                        "project's Secrets or ConfigMaps), fieldRef, resourceFieldRef.",
                    ),
                ),
                description="One environment variable.",
            ),
            description="Environment variables (the platform's names, e.g. SHARD_INDEX, are reserved).",
        ),
    ),
    Field(
        "envFrom",
        Arr(
            items=obj(
                Field("prefix", Str(checks=(c.env_name,), description="Put before every key's variable name.")),
                Field("secretRef", config_ref("Secret")),
                Field("configMapRef", config_ref("ConfigMap")),
                description="Every key of one of the project's Secrets or ConfigMaps, as a variable.",
            ),
            description="Variables from whole Secrets or ConfigMaps of the project (copied to where the pods run).",
        ),
    ),
    Field(
        "ports",
        Arr(
            items=obj(
                Field("name", Str(checks=(c.port_name,), description="A name Services may target (IANA_SVC_NAME).")),
                Field(
                    "containerPort", Int(minimum=1, maximum=65535, description="The port it listens on."), required=True
                ),
                Field("protocol", Str(enum=("TCP", "UDP", "SCTP"), description="Default TCP.")),
                description="A port the container listens on.",
            ),
            description="Ports the container listens on.",
        ),
    ),
    Field(
        "resources",
        obj(
            Field("requests", _quantities("What the scheduler reserves and the project's grant is charged.")),
            Field("limits", _quantities("The most it may use (a request defaults to its limit).")),
            description="CPU, memory and GPUs; a container without requests is charged the LimitRange default.",
        ),
    ),
    Field(
        "volumeMounts",
        Arr(
            items=obj(
                Field("name", Str(description="One of the pod's volumes."), required=True),
                Field("mountPath", Str(checks=(c.absolute_path,), description=_PATH), required=True),
                Field("readOnly", Bool(description="Mount read-only.")),
                Field("subPath", Str(description="A path inside the volume to mount instead of its root.")),
                description="One volume mounted into the container.",
            ),
            description="The pod's volumes mounted into this container.",
        ),
    ),
    Field("livenessProbe", Obj(open=True, description="A Kubernetes Probe: failing it restarts the container.")),
    Field(
        "readinessProbe", Obj(open=True, description="A Kubernetes Probe: failing it takes the pod out of Services.")
    ),
    Field("startupProbe", Obj(open=True, description="A Kubernetes Probe: the other probes wait until it passes.")),
    Field("securityContext", CONTAINER_SECURITY_CONTEXT),
    description="A container as in a Kubernetes pod, limited to the fields PinCompute supports.",
)

TOLERATION = obj(
    Field("key", Str(description="The taint's key; empty with operator Exists matches every taint.")),
    Field("operator", Str(enum=("Exists", "Equal"), description="Default Equal.")),
    Field("value", Str(description="The taint's value (operator Equal).")),
    Field(
        "effect",
        Str(enum=("NoSchedule", "PreferNoSchedule", "NoExecute"), description="The taint effect; empty matches all."),
    ),
    Field("tolerationSeconds", Int(description="NoExecute only: how long the pod stays once tainted.")),
    description="A Kubernetes toleration: lets the pods run on nodes with a matching taint.",
)


def meta_fields() -> tuple[Field, ...]:
    """Ownership and tier: who pays, which quota is charged."""
    return (
        Field(
            "project",
            Str(checks=(c.workload_name,), description="The owning project; must be the namespace's project."),
            required=True,
        ),
        Field("team", Str(checks=(c.label_value,), description="The team to report cost and usage under.")),
        Field("costCenter", Str(max_length=128, description="The cost center billed, e.g. CC-1042.")),
        Field(
            "tier",
            Str(
                enum=tuple(t.value for t in Tier),
                description="Which of the project's grants it is charged to (PriorityClass too). Default OnDemand "
                "(Batch for run-to-finish kinds).",
            ),
        ),
    )


_HOST_DOCS = (
    "Use the node's network namespace.",
    "Use the node's process namespace.",
    "Use the node's IPC namespace.",
)


def pod_fields(containers_required: bool = True) -> tuple[Field, ...]:
    return (
        Field(
            "containers",
            Arr(items=CONTAINER, min_items=1, description="The pod's main containers."),
            required=containers_required,
        ),
        Field("sidecars", Arr(items=CONTAINER, description="User sidecars, run as native sidecars.")),
        Field(
            "volumes",
            Arr(
                items=obj(
                    Field("name", Str(checks=(c.container_name,), description="Named by volumeMounts."), required=True),
                    Field("secret", file_source("Secret", "secretName")),
                    Field("configMap", file_source("ConfigMap", "name")),
                    open=True,
                    description="A Kubernetes volume (configMap, secret, emptyDir, persistentVolumeClaim...).",
                ),
                description="Volumes the containers may mount.",
            ),
        ),
        Field(
            "nodeSelector",
            MapOf(
                values=Str(checks=(c.label_value,)),
                key_check=c.label_key,
                description="Node labels every node the pods run on must carry.",
            ),
        ),
        Field("tolerations", Arr(items=TOLERATION, description="Taints the pods tolerate.")),
        Field("hardwareFamily", Str(checks=(c.label_value,), description="Node hardware family, e.g. g5.")),
        Field("securityContext", POD_SECURITY_CONTEXT),
        *(
            Field(name, Bool(description=f"{doc} Only where the project's pod security level allows it."))
            for name, doc in zip(HOST_NAMESPACES, _HOST_DOCS, strict=True)
        ),
    )


def operations_field() -> Field:
    return Field(
        "operations",
        obj(
            Field("paused", Bool(description="Keep the pods, roll out no change (not for a PinPod).")),
            Field("stopped", Bool(description="Run no pods until set back to false; the spec is kept.")),
            Field(
                "restartedAt",
                Str(checks=(c.rfc3339,), format=DATE_TIME, description="Changing it rolls every pod."),
            ),
            Field(
                "restartContainer",
                obj(
                    Field("pod", Str(description="One pod; every pod when unset.")),
                    Field("container", Str(description="The container to restart."), required=True),
                    Field(
                        "requestedAt",
                        Str(checks=(c.rfc3339,), format=DATE_TIME, description="A new time is a new request."),
                        required=True,
                    ),
                    description="Restart one container in place, without replacing its pod.",
                ),
            ),
            description="What the owner asked the workload to do: pause, stop, restart.",
        ),
    )


# ---- models ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkloadMeta:
    name: str
    namespace: str
    project: str
    team: str
    cost_center: str
    tier: Tier
    labels: Mapping[str, str] = field(default_factory=dict)
    uid: str = ""
    generation: int = 0


@dataclass(frozen=True)
class RestartContainer:
    container: str
    requested_at: str
    pod: str | None = None


@dataclass(frozen=True)
class Operations:
    """Operation fields under ``spec.operations``; ``replicas`` stays a top-level spec field."""

    paused: bool = False
    stopped: bool = False
    restarted_at: str | None = None
    restart_container: RestartContainer | None = None

    @property
    def halted(self) -> bool:
        return self.paused or self.stopped


@dataclass(frozen=True)
class Container:
    """A user container; ``fields`` is the validated Kubernetes container dict, emitted unchanged."""

    name: str
    image: str
    fields: Mapping[str, Any]

    def env_names(self) -> tuple[str, ...]:
        return tuple(e["name"] for e in self.fields.get("env", ()))

    def effective_request(self) -> Resources:
        """Requests as the quota counts them: request, else limit, else the LimitRange default."""
        resources = self.fields.get("resources", {})
        requests, limits = resources.get("requests", {}), resources.get("limits", {})

        def pick(key: str, parser: Callable[[str | int | float], int], default: int) -> int:
            if key in requests:
                return int(parser(requests[key]))
            if key in limits:
                return int(parser(limits[key]))
            return default

        return Resources(
            pick("cpu", parse_cpu, DEFAULT_CONTAINER_REQUEST.cpu_milli),
            pick("memory", parse_memory, DEFAULT_CONTAINER_REQUEST.memory_bytes),
            pick(GPU_RESOURCE, parse_gpu, 0),
        )

    def to_k8s(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.fields))


@dataclass(frozen=True)
class PodFields:
    containers: tuple[Container, ...]
    sidecars: tuple[Container, ...] = ()
    volumes: tuple[Mapping[str, Any], ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Mapping[str, Any], ...] = ()
    hardware_family: str | None = None
    host_namespaces: Mapping[str, bool] = field(default_factory=dict)  # hostNetwork/hostPID/hostIPC when set
    security_context: Mapping[str, Any] = field(default_factory=dict)

    def user_request(self) -> Resources:
        return pod_request(
            [x.effective_request() for x in self.containers], [(x.effective_request(), True) for x in self.sidecars]
        )

    def to_pod_spec(self) -> dict[str, Any]:
        """The user's part of a PodSpec, before the runtime profile is injected."""
        spec: dict[str, Any] = {"containers": [x.to_k8s() for x in self.containers]}
        if self.sidecars:
            spec["initContainers"] = [{**x.to_k8s(), "restartPolicy": "Always"} for x in self.sidecars]
        if self.volumes:
            spec["volumes"] = copy.deepcopy([dict(v) for v in self.volumes])
        selector = dict(self.node_selector)
        if self.hardware_family:
            selector[HARDWARE_FAMILY_LABEL] = self.hardware_family
        if selector:
            spec["nodeSelector"] = selector
        if self.tolerations:
            spec["tolerations"] = copy.deepcopy([dict(t) for t in self.tolerations])
        spec.update(self.host_namespaces)
        if self.security_context:
            spec["securityContext"] = copy.deepcopy(dict(self.security_context))
        return spec


def build_meta(manifest: Mapping[str, Any]) -> WorkloadMeta:
    metadata, spec = manifest.get("metadata") or {}, manifest.get("spec") or {}
    return WorkloadMeta(
        name=metadata["name"],
        namespace=metadata.get("namespace") or "",
        project=spec["project"],
        team=spec.get("team") or "",
        cost_center=spec.get("costCenter") or "",
        tier=Tier.parse(spec["tier"]) if spec.get("tier") else default_tier(manifest.get("kind")),
        labels=dict(metadata.get("labels") or {}),
        uid=metadata.get("uid") or "",
        generation=int(metadata.get("generation") or 0),
    )


def build_container(raw: Mapping[str, Any]) -> Container:
    return Container(raw["name"], raw["image"], {k: v for k, v in raw.items() if v is not None})


def build_pod(raw: Mapping[str, Any]) -> PodFields:
    return PodFields(
        containers=tuple(build_container(x) for x in raw.get("containers") or ()),
        sidecars=tuple(build_container(x) for x in raw.get("sidecars") or ()),
        volumes=tuple(raw.get("volumes") or ()),
        node_selector=dict(raw.get("nodeSelector") or {}),
        tolerations=tuple(raw.get("tolerations") or ()),
        hardware_family=raw.get("hardwareFamily"),
        host_namespaces={name: bool(raw[name]) for name in HOST_NAMESPACES if name in raw},
        security_context=dict(raw.get("securityContext") or {}),
    )


def build_operations(spec: Mapping[str, Any]) -> Operations:
    ops = spec.get("operations") or {}
    restart = ops.get("restartContainer")
    return Operations(
        paused=bool(ops.get("paused")),
        stopped=bool(ops.get("stopped")),
        restarted_at=ops.get("restartedAt"),
        restart_container=RestartContainer(restart["container"], restart["requestedAt"], restart.get("pod"))
        if restart
        else None,
    )
