"""Server-side apply (and delete) of manifests on one cluster through its pooled ApiClient.

Used for provisioning (namespaces, quotas, RBAC, NetworkPolicies, PriorityClasses, CRDs) and for writing workload custom
resources. The portal's field manager is distinct from the operator's.

The kinds the platform writes are in a fixed table (native ones, and every ``pincompute.io`` kind from
the kind registry), so applying them costs one PATCH and no discovery; any other kind goes through the
dynamic client's discovery. Errors are the client's own (``ApiException`` by status, urllib3/OSError for
transport; ``ResourceNotFoundError`` for a kind the cluster does not serve): callers classify them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from kubernetes import dynamic
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic.exceptions import ResourceNotFoundError

from pincompute.kinds import KINDS, PLATFORM_KINDS
from pincompute.kube import rawapi

FIELD_MANAGER = "pinconsole"
# Per request (connect, read): a server-side apply of one small object answers in well under a second. The
# callers bound a whole run further (``projects.provisioning``: one deadline per cluster and project).
_TIMEOUT: rawapi.Timeout = (3.0, 20.0)
DEFAULT_TIMEOUT = _TIMEOUT


@dataclass(frozen=True)
class KnownKind:
    api_version: str
    plural: str
    namespaced: bool

    def path(self, name: str, namespace: str | None) -> str:
        root = f"/apis/{self.api_version}" if "/" in self.api_version else f"/api/{self.api_version}"
        scope = f"/namespaces/{quote(namespace)}" if self.namespaced and namespace else ""
        return f"{root}{scope}/{self.plural}/{quote(name)}"


_NATIVE = {
    ("v1", "Namespace"): KnownKind("v1", "namespaces", False),
    ("v1", "ResourceQuota"): KnownKind("v1", "resourcequotas", True),
    ("v1", "LimitRange"): KnownKind("v1", "limitranges", True),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): KnownKind("rbac.authorization.k8s.io/v1", "rolebindings", True),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"): KnownKind("rbac.authorization.k8s.io/v1", "clusterroles", False),
    ("networking.k8s.io/v1", "NetworkPolicy"): KnownKind("networking.k8s.io/v1", "networkpolicies", True),
    ("scheduling.k8s.io/v1", "PriorityClass"): KnownKind("scheduling.k8s.io/v1", "priorityclasses", False),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"): KnownKind(
        "apiextensions.k8s.io/v1", "customresourcedefinitions", False
    ),
}
KNOWN: dict[tuple[str, str], KnownKind] = {
    **_NATIVE,
    **{(i.api_version, i.kind): KnownKind(i.api_version, i.plural, True) for i in KINDS.values()},
    **{(i.api_version, i.kind): KnownKind(i.api_version, i.plural, i.namespaced) for i in PLATFORM_KINDS.values()},
}


def dynamic_client(api: ApiClient) -> dynamic.DynamicClient:
    return dynamic.DynamicClient(api)


def _known(manifest: dict[str, Any]) -> KnownKind | None:
    return KNOWN.get((manifest["apiVersion"], manifest["kind"]))


def apply(
    api: ApiClient | dynamic.DynamicClient,
    manifest: dict[str, Any],
    *,
    field_manager: str = FIELD_MANAGER,
    timeout: rawapi.Timeout | None = None,
) -> dict[str, Any]:
    """Server-side apply one object, forcing ownership of the fields it sets; returns the object.
    ``timeout``: (connect, read) seconds for a known kind's request (default ``_TIMEOUT``)."""
    known = _known(manifest)
    if known is not None:
        raw = api.client if isinstance(api, dynamic.DynamicClient) else api
        metadata = manifest["metadata"]
        resp = rawapi.request(
            raw,
            "PATCH",
            known.path(metadata["name"], metadata.get("namespace")),
            [("fieldManager", field_manager), ("force", "true")],
            timeout or _TIMEOUT,
            body=manifest,
            content_type="application/apply-patch+yaml",
        )
        return rawapi.read_json(resp)
    client = api if isinstance(api, dynamic.DynamicClient) else dynamic_client(api)
    resource = client.resources.get(api_version=manifest["apiVersion"], kind=manifest["kind"])
    namespace = manifest["metadata"].get("namespace") if resource.namespaced else None
    result = resource.server_side_apply(
        body=manifest,
        name=manifest["metadata"]["name"],
        namespace=namespace,
        field_manager=field_manager,
        force_conflicts=True,
    )
    return dict(result.to_dict())


def apply_all(
    api: ApiClient,
    manifests: list[dict[str, Any]],
    *,
    field_manager: str = FIELD_MANAGER,
    refresh_on_missing: bool = True,
    call: Callable[[Callable[[], dict[str, Any]]], dict[str, Any]] = lambda fn: fn(),
    timeout: Callable[[], rawapi.Timeout] = lambda: _TIMEOUT,
) -> list[dict[str, Any]]:
    """Apply in order; a kind that appeared after discovery (a CRD just installed) triggers one refresh.

    ``call`` wraps each apply (the cluster's breaker and retry policy, ``ClientPool.run``); ``timeout`` is
    asked before each attempt (a caller's deadline shortens it, or raises to stop the retries).
    """
    client: ApiClient | dynamic.DynamicClient = api
    results = []
    for manifest in manifests:
        try:
            results.append(
                call(lambda m=manifest, c=client: apply(c, m, field_manager=field_manager, timeout=timeout()))
            )
        except ResourceNotFoundError:
            if not refresh_on_missing:
                raise
            client = dynamic.DynamicClient(api, discoverer=dynamic.discovery.EagerDiscoverer)
            results.append(
                call(lambda m=manifest, c=client: apply(c, m, field_manager=field_manager, timeout=timeout()))
            )
    return results


def delete(
    api: ApiClient,
    api_version: str,
    kind: str,
    name: str,
    namespace: str | None = None,
    *,
    timeout: rawapi.Timeout | None = None,
) -> bool:
    """Delete one object of a known kind (background propagation); True when it is already gone.

    A namespace is gone only once its finalizers ran: call again until it answers True.
    """
    known = KNOWN[(api_version, kind)]
    path = known.path(name, namespace)
    timeout = timeout or _TIMEOUT
    try:
        current = rawapi.read_json(rawapi.request(api, "GET", path, [], timeout))
    except ApiException as exc:
        if exc.status == 404:
            return True
        raise
    if (current.get("metadata") or {}).get("deletionTimestamp"):
        return False  # already being deleted (a namespace runs its finalizers first)
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}
    try:
        rawapi.read_json(rawapi.request(api, "DELETE", path, [], timeout, body=body))
    except ApiException as exc:
        if exc.status == 404:
            return True
        raise
    return False
