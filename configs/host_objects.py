"""A project's Secrets and ConfigMaps on the host cluster: reads and writes through the host's breaker and retry
policy (``clusters.remote``), errors as the taxonomy's.

The portal keeps no copy: every read is live (no watch cache holds these kinds) and is reduced at once to what
may be shown (key names, value lengths, metadata); a Secret's values are decoded only to merge an edit and are
dropped with the call's frame.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, TypeVar

from kubernetes.client import ApiClient, CoreV1Api
from kubernetes.client.exceptions import ApiException

from base.errors import Conflict, Invalid, NotFound, Unavailable
from clusters import remote
from clusters.models import Cluster, FederationRole
from pincompute.configs import MANAGED_BY_PORTAL, ConfigKind, ConfigSummary, summary
from pincompute.kube import apierrors
from pincompute.labels import MANAGED_BY_LABEL, PROJECT_LABEL

T = TypeVar("T")


def _host() -> Cluster:
    host = Cluster.objects.filter(role=FederationRole.HOST).order_by("pk").first()
    if host is None:
        raise Unavailable("No host cluster is registered: Secrets and ConfigMaps are kept there.")
    return host


def _call(what: str, fn: Callable[[CoreV1Api], T], *, idempotent: bool = True) -> T:
    host = _host()

    def run() -> T:
        try:
            return remote.through_breaker(host, lambda: fn(CoreV1Api(remote.client(host, what))), idempotent=idempotent)
        except ApiException as exc:
            mapped = apierrors.service_error(exc, what)
            if isinstance(mapped, NotFound):
                raise NotFound(f"{what}: not found") from exc  # never the apiserver's words: no other names leak
            if isinstance(mapped, Conflict):
                raise Conflict(f"{what}: {apierrors.said(exc)}") from exc
            if isinstance(mapped, Invalid):
                raise Invalid(
                    f"{what}: the host's apiserver refused it: {apierrors.said(exc)}", fields=mapped.fields
                ) from exc
            raise

    return remote.guarded(f"{what} on {host.name}", run)


def _selector(project: str) -> str:
    return f"{PROJECT_LABEL}={project},{MANAGED_BY_LABEL}={MANAGED_BY_PORTAL}"


def _plain(api: CoreV1Api, obj: Any) -> dict[str, Any]:
    return dict(ApiClient.sanitize_for_serialization(api.api_client, obj))


def _lengths(kind: ConfigKind, obj: dict[str, Any]) -> dict[str, int]:
    data = obj.get("data") or {}
    if kind == "Secret":
        return {k: len(base64.b64decode(v or "")) for k, v in data.items()}
    return {k: len(v or "") for k, v in data.items()}


def _ours(obj: dict[str, Any], project: str) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return labels.get(PROJECT_LABEL) == project and labels.get(MANAGED_BY_LABEL) == MANAGED_BY_PORTAL


def list_summaries(kind: ConfigKind, namespace: str, project: str) -> list[ConfigSummary]:
    """The project's objects of ``kind`` the portal manages, by name, values dropped."""

    def listed(api: CoreV1Api) -> list[ConfigSummary]:
        lister = api.list_namespaced_secret if kind == "Secret" else api.list_namespaced_config_map
        items = [_plain(api, o) for o in lister(namespace, label_selector=_selector(project)).items]
        return [summary(kind, o, _lengths(kind, o)) for o in items]

    return sorted(_call(f"list {kind}s", listed), key=lambda s: s.name)


def read_data(kind: ConfigKind, namespace: str, project: str, name: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The object's metadata and its values (decoded): for a service merging an edit, never for a page."""

    def read(api: CoreV1Api) -> tuple[dict[str, Any], dict[str, str]]:
        reader = api.read_namespaced_secret if kind == "Secret" else api.read_namespaced_config_map
        obj = _plain(api, reader(name, namespace))
        if not _ours(obj, project):
            raise NotFound(f"read {kind}/{name}: not found")
        data = obj.pop("data", None) or {}
        if kind == "Secret":
            data = {k: base64.b64decode(v or "").decode("utf-8", "surrogateescape") for k, v in data.items()}
        return obj, data

    return _call(f"read {kind}/{name}", read)


def read_summary(kind: ConfigKind, namespace: str, project: str, name: str) -> ConfigSummary:
    meta, data = read_data(kind, namespace, project, name)
    return summary(kind, meta, {k: len(v) for k, v in data.items()})


def create(kind: ConfigKind, body: dict[str, Any]) -> None:
    meta = body["metadata"]

    def post(api: CoreV1Api) -> None:
        creator = api.create_namespaced_secret if kind == "Secret" else api.create_namespaced_config_map
        creator(meta["namespace"], body, field_manager="pinconsole")

    _call(f"create {kind}/{meta['name']}", post, idempotent=False)


def replace(kind: ConfigKind, body: dict[str, Any], resource_version: str) -> None:
    """A PUT guarded by ``resource_version``: a concurrent edit is a 409, never overwritten."""
    meta = body["metadata"]
    body = {**body, "metadata": {**meta, "resourceVersion": resource_version}}

    def put(api: CoreV1Api) -> None:
        replacer = api.replace_namespaced_secret if kind == "Secret" else api.replace_namespaced_config_map
        replacer(meta["name"], meta["namespace"], body, field_manager="pinconsole")

    _call(f"replace {kind}/{meta['name']}", put)


def delete(kind: ConfigKind, namespace: str, name: str, resource_version: str) -> None:
    def remove(api: CoreV1Api) -> None:
        deleter = api.delete_namespaced_secret if kind == "Secret" else api.delete_namespaced_config_map
        deleter(name, namespace, body={"preconditions": {"resourceVersion": resource_version}})

    _call(f"delete {kind}/{name}", remove)
