"""A project's policy, and the one function that judges a workload against it.

Set by platform admins per project (defaults for new projects), shown to the project, and enforced twice with the
same ``policy_violations``: by the portal's submission service and by the host's admission webhook, which reads the
policy from the project's host namespace (``POLICY_ANNOTATION``, written by provisioning from ``policy_document``).

The rules, each a ``Rule`` with the words a refusal ends with ("(policy: image registries)"):
allowed kinds, allowed tiers, an image registry allowlist (an image without a registry is ``docker.io``'s, as
Kubernetes pulls it), the most CPU, memory and GPUs one container may request or be limited to, whether platform
sidecars may be exec'd into (with a time-limited grant), and whether the owners are told when a shell is opened.
A rule left unset (``None``) allows everything; an empty list allows nothing. Pure: no I/O.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.errors import FieldError, SpecInvalid
from pincompute.kinds import KINDS, default_tier
from pincompute.quantity import GPU_RESOURCE, QuantityError, format_amount, parse_cpu, parse_gpu, parse_memory
from pincompute.tiers import Tier


class Rule(enum.Enum):
    """A policy rule, by the name a refusal gives it."""

    KINDS = "allowed kinds"
    TIERS = "allowed tiers"
    REGISTRIES = "image registries"
    RESOURCES = "max resources per container"
    SIDECAR_EXEC = "sidecar exec"


DOCKER_HUB = "docker.io"
_DOCKER_HUB_ALIASES = frozenset({"docker.io", "index.docker.io", "registry-1.docker.io"})
_REGISTRY_ENTRY = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?(/[a-z0-9._-]+)*$")
MAX_REGISTRIES = 50
LIMITED = ("cpu", "memory", "gpu")
"""The resources ``maxPerContainer`` may cap, by the names the document uses (``gpu``: ``nvidia.com/gpu``)."""
_PARSERS = {"cpu": parse_cpu, "memory": parse_memory, "gpu": parse_gpu}
_K8S_NAMES = {"cpu": "cpu", "memory": "memory", "gpu": GPU_RESOURCE}
FIELDS = ("allowedKinds", "allowedTiers", "imageRegistries", "maxPerContainer", "sidecarExec", "notifyOnShell")


@dataclass(frozen=True)
class ProjectPolicy:
    """``None`` in a restriction: no restriction. ``max_per_container`` maps ``cpu`` (millicores), ``memory``
    (bytes) and ``gpu`` to the most one container may ask; an absent resource is not capped."""

    kinds: frozenset[str] | None = None
    tiers: frozenset[Tier] | None = None
    registries: tuple[str, ...] | None = None
    max_per_container: Mapping[str, int] | None = None
    sidecar_exec: bool = True
    notify_on_shell: bool = False


OPEN = ProjectPolicy()
"""Everything allowed, nobody told: what a project onboarded before policies existed is under."""


def policy_document(policy: ProjectPolicy) -> dict[str, Any]:
    """The JSON form (the API body, the database row, the host namespace's annotation); ``parse_policy``'s inverse."""
    caps = policy.max_per_container
    return {
        "allowedKinds": None if policy.kinds is None else sorted(policy.kinds),
        "allowedTiers": None if policy.tiers is None else [t.value for t in Tier if t in policy.tiers],
        "imageRegistries": None if policy.registries is None else list(policy.registries),
        "maxPerContainer": None if caps is None else {r: format_amount(r, caps[r]) for r in LIMITED if r in caps},
        "sidecarExec": policy.sidecar_exec,
        "notifyOnShell": policy.notify_on_shell,
    }


def parse_policy(document: object) -> ProjectPolicy:
    """The policy a JSON document describes, strictly: every unknown field, wrong type or bad value is a
    ``FieldError`` naming it (raised together as ``SpecInvalid``). An absent field keeps ``OPEN``'s value."""
    if not isinstance(document, Mapping):
        raise SpecInvalid([FieldError("", "give the policy as an object")])
    errors = [
        FieldError(str(k), f"unknown field; the fields are {', '.join(FIELDS)}") for k in document if k not in FIELDS
    ]
    kinds = _names(document, "allowedKinds", sorted(KINDS), errors)
    tier_names = _names(document, "allowedTiers", [t.value for t in Tier], errors)
    registries = _registries(document.get("imageRegistries"), errors)
    caps = _caps(document.get("maxPerContainer"), errors)
    flags = {}
    for name, default in (("sidecarExec", OPEN.sidecar_exec), ("notifyOnShell", OPEN.notify_on_shell)):
        value = document.get(name, default)
        if not isinstance(value, bool):
            errors.append(FieldError(name, "give true or false"))
        flags[name] = value is True
    if errors:
        raise SpecInvalid(errors)
    return ProjectPolicy(
        kinds=None if kinds is None else frozenset(kinds),
        tiers=None if tier_names is None else frozenset(Tier(t) for t in tier_names),
        registries=registries,
        max_per_container=caps,
        sidecar_exec=flags["sidecarExec"],
        notify_on_shell=flags["notifyOnShell"],
    )


def parse_annotation(value: str | None) -> ProjectPolicy:
    """The policy a host namespace's annotation holds (none: ``OPEN``); a malformed one raises ``SpecInvalid``."""
    if not value:
        return OPEN
    try:
        document = json.loads(value)
    except ValueError as exc:
        raise SpecInvalid([FieldError("metadata.annotations", f"the policy annotation is not JSON: {exc}")]) from exc
    return parse_policy(document)


def annotation_value(policy: ProjectPolicy) -> str:
    """The annotation's value: the document as compact JSON with sorted keys (so an unchanged policy applies as
    the same bytes)."""
    return json.dumps(policy_document(policy), sort_keys=True, separators=(",", ":"))


def _names(document: Mapping[str, Any], name: str, known: list[str], errors: list[FieldError]) -> list[str] | None:
    value = document.get(name)
    if value is None:
        return None
    if not isinstance(value, list):
        errors.append(FieldError(name, "give a list of names, or null for no restriction"))
        return None
    for index, item in enumerate(value):
        if item not in known:
            errors.append(FieldError(f"{name}[{index}]", f"{item!r} is not one of {', '.join(known)}"))
    return [item for item in value if item in known]


def _registries(value: object, errors: list[FieldError]) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        errors.append(FieldError("imageRegistries", "give a list of registries, or null for any registry"))
        return None
    if len(value) > MAX_REGISTRIES:
        errors.append(FieldError("imageRegistries", f"at most {MAX_REGISTRIES} entries"))
    out: list[str] = []
    for index, item in enumerate(value):
        entry = item.strip().lower() if isinstance(item, str) else ""
        if len(entry) > 253 or not _REGISTRY_ENTRY.match(entry):
            errors.append(
                FieldError(
                    f"imageRegistries[{index}]",
                    f"{item!r} is not a registry host (quay.io, registry.example.com:5000) with an optional path "
                    "prefix (ghcr.io/acme)",
                )
            )
        elif _canonical_registry(entry) not in out:
            out.append(_canonical_registry(entry))
    return tuple(out)


def _caps(value: object, errors: list[FieldError]) -> dict[str, int] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        errors.append(FieldError("maxPerContainer", "give an object of cpu, memory and gpu, or null for no maximum"))
        return None
    caps: dict[str, int] = {}
    for name, amount in value.items():
        path = f"maxPerContainer.{name}"
        if name not in LIMITED:
            errors.append(FieldError(path, f"unknown resource; use {', '.join(LIMITED)}"))
            continue
        if amount is None:
            continue
        if isinstance(amount, bool) or not isinstance(amount, str | int):
            errors.append(FieldError(path, "give a quantity such as 4, 500m or 8Gi"))
            continue
        try:
            caps[name] = _PARSERS[name](amount)
        except QuantityError as exc:
            errors.append(FieldError(path, str(exc)))
            continue
        if caps[name] < 0:
            errors.append(FieldError(path, "must not be negative"))
    return caps


def _canonical_registry(entry: str) -> str:
    host, _, rest = entry.partition("/")
    host = DOCKER_HUB if host in _DOCKER_HUB_ALIASES else host
    return f"{host}/{rest}" if rest else host


def image_repository(image: str) -> str:
    """``registry/path`` of an image reference, as the container runtime resolves it: the first component is a
    registry only when it has a dot or a port or is ``localhost``; otherwise the image is Docker Hub's
    (``nginx`` is ``docker.io/library/nginx``). Tag and digest dropped."""
    name = image.split("@", 1)[0]
    first, slash, rest = name.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        host, path = first.lower(), rest
    else:
        host, path = DOCKER_HUB, name if slash else f"library/{name}"
    last = path.rsplit("/", 1)
    last[-1] = last[-1].split(":", 1)[0]
    return _canonical_registry(f"{host}/{'/'.join(last)}")


def registry_allowed(image: str, registries: tuple[str, ...]) -> bool:
    """Whether an entry is the image's registry host or a path prefix of its repository (``ghcr.io/acme`` allows
    ``ghcr.io/acme/app`` but not ``ghcr.io/acmecorp/app``)."""
    repository = image_repository(image)
    return any(repository == entry or repository.startswith(entry + "/") for entry in registries)


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _refusal(path: str, message: str, rule: Rule) -> FieldError:
    return FieldError(path, f"{message} (policy: {rule.value})")


def _containers(manifest: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, container) of every user container and sidecar, in the spec's own paths."""
    kind = manifest.get("kind")
    if kind not in KINDS or not KINDS[str(kind)].runs_pods:
        return
    spec = _map(manifest.get("spec"))
    base, pod = ("spec.template", spec.get("template")) if kind == "PinApp" else ("spec", spec)
    if not isinstance(pod, Mapping):
        return
    for group in ("containers", "sidecars"):
        items = pod.get(group)
        for index, container in enumerate(items if isinstance(items, list) else []):
            if isinstance(container, Mapping):
                yield f"{base}.{group}[{index}]", container


def policy_violations(policy: ProjectPolicy, manifest: Mapping[str, Any]) -> list[FieldError]:
    """Every way ``manifest`` (a workload of any kind, already valid) breaks ``policy``: one ``FieldError`` per
    field, naming the rule. Empty: the policy allows it."""
    errors: list[FieldError] = []
    kind = str(manifest.get("kind") or "")
    if policy.kinds is not None and kind not in policy.kinds:
        allowed = ", ".join(sorted(policy.kinds)) or "none"
        errors.append(_refusal("kind", f"{kind} is not allowed in this project (allowed: {allowed})", Rule.KINDS))
    spec = _map(manifest.get("spec"))
    if policy.tiers is not None and kind in KINDS:
        tier = _tier(spec.get("tier"), kind)
        if tier is not None and tier not in policy.tiers:
            allowed = ", ".join(t.value for t in Tier if t in policy.tiers) or "none"
            errors.append(
                _refusal(
                    "spec.tier", f"tier {tier.value} is not allowed in this project (allowed: {allowed})", Rule.TIERS
                )
            )
    for path, container in _containers(manifest):
        image = container.get("image")
        if policy.registries is not None and isinstance(image, str) and not registry_allowed(image, policy.registries):
            registry = image_repository(image).split("/", 1)[0]
            allowed = ", ".join(policy.registries) or "none"
            errors.append(
                _refusal(
                    f"{path}.image",
                    f"registry {registry} is not in this project's allowlist ({allowed})",
                    Rule.REGISTRIES,
                )
            )
        errors.extend(_beyond_caps(policy, path, container))
    errors.extend(_gpus_per_worker(policy, spec))
    return errors


def _tier(value: object, kind: str) -> Tier | None:
    if not value:
        return default_tier(kind)
    try:
        return Tier.parse(str(value))
    except ValueError:
        return None  # validation names it


def _beyond_caps(policy: ProjectPolicy, path: str, container: Mapping[str, Any]) -> list[FieldError]:
    caps = policy.max_per_container or {}
    resources = _map(container.get("resources"))
    errors: list[FieldError] = []
    for section in ("requests", "limits"):
        values = _map(resources.get(section))
        for name, cap in caps.items():
            raw = values.get(_K8S_NAMES[name])
            if not isinstance(raw, str | int) or isinstance(raw, bool):
                continue
            try:
                amount = _PARSERS[name](raw)
            except QuantityError:
                continue  # validation names it
            if amount > cap:
                errors.append(_over(f"{path}.resources.{section}.{_K8S_NAMES[name]}", name, amount, cap))
    return errors


def _gpus_per_worker(policy: ProjectPolicy, spec: Mapping[str, Any]) -> list[FieldError]:
    """A batch kind's ``gpusPerWorker`` is its first container's GPU request and limit."""
    cap = (policy.max_per_container or {}).get("gpu")
    gpus = spec.get("gpusPerWorker")
    if cap is None or not isinstance(gpus, int) or isinstance(gpus, bool) or gpus <= cap:
        return []
    return [_over("spec.gpusPerWorker", "gpu", gpus, cap)]


def _over(path: str, name: str, amount: int, cap: int) -> FieldError:
    return _refusal(
        path,
        f"{format_amount(name, amount)} {name} is more than this project's maximum of {format_amount(name, cap)} "
        "per container",
        Rule.RESOURCES,
    )


def sidecar_exec_refusal(policy: ProjectPolicy, project: str) -> str:
    """Why a time-limited sidecar-exec grant does not open a platform sidecar here ("" when the policy allows it)."""
    if policy.sidecar_exec:
        return ""
    return f"project {project}'s policy forbids a shell in the platform's sidecars (policy: {Rule.SIDECAR_EXEC.value})"
