"""Server-side apply of manifests to one cluster through its pooled ApiClient (dynamic client).

Used for provisioning (namespaces, quotas, PriorityClasses, CRDs) and for writing workload custom
resources. The portal's field manager is distinct from the operator's.
"""

from __future__ import annotations

from typing import Any

from kubernetes import dynamic
from kubernetes.client import ApiClient
from kubernetes.dynamic.exceptions import ResourceNotFoundError

FIELD_MANAGER = "pinconsole"


def dynamic_client(api: ApiClient) -> dynamic.DynamicClient:
    return dynamic.DynamicClient(api)


def apply(
    api: ApiClient | dynamic.DynamicClient, manifest: dict[str, Any], *, field_manager: str = FIELD_MANAGER
) -> dict[str, Any]:
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
    return result.to_dict()


def apply_all(
    api: ApiClient,
    manifests: list[dict[str, Any]],
    *,
    field_manager: str = FIELD_MANAGER,
    refresh_on_missing: bool = True,
) -> list[dict[str, Any]]:
    """Apply in order; a kind that appeared after discovery (a CRD just installed) triggers one refresh."""
    client = dynamic_client(api)
    results = []
    for manifest in manifests:
        try:
            results.append(apply(client, manifest, field_manager=field_manager))
        except ResourceNotFoundError:
            if not refresh_on_missing:
                raise
            client = dynamic.DynamicClient(api, discoverer=dynamic.discovery.EagerDiscoverer)
            results.append(apply(client, manifest, field_manager=field_manager))
    return results
