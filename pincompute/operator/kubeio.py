"""The operator's Kubernetes I/O: raw JSON over one ApiClient per cluster, errors mapped to the core taxonomy.

Requests go through ``pincompute.kube.rawapi``; the operator's informers are the core list-watch
(``pincompute.kube.listwatch``), wired in ``cluster.py``.

Raw JSON (``_preload_content=False``) because the operator only handles dicts, and generated models
cost far more than the JSON parse. Every failed call is classified here by the one mapping
(``pincompute.kube.apierrors``), so callers catch ``Conflict`` / ``TemporaryError`` / ``PermanentError`` /
``NotFound`` and never ``Exception``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

from kubernetes import client
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError as Urllib3Error

from pincompute import GROUP, VERSION
from pincompute.errors import CoreError, Invalid, NotFound, PermanentError
from pincompute.kube import apierrors, podexec, rawapi
from pincompute.kube.client import new_api_client
from pincompute.kube.rawapi import Timeout
from pincompute.pod_refusals import is_admission_refusal

T = TypeVar("T")
FIELD_MANAGER = "pincompute-operator"
_TIMEOUT: Timeout = (5.0, 30.0)


@dataclass(frozen=True)
class Resource:
    """Where a kind lives in the REST API."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool = True

    def path(self, namespace: str | None = None, name: str | None = None, sub: str | None = None) -> str:
        base = f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{quote(namespace)}"
        base += f"/{self.plural}"
        if name:
            base += f"/{quote(name)}"
        if sub:
            base += f"/{sub}"
        return base


NATIVE = {
    r.kind: r
    for r in (
        Resource("v1", "Pod", "pods"),
        Resource("v1", "Service", "services"),
        Resource("v1", "ConfigMap", "configmaps"),
        Resource("v1", "PersistentVolumeClaim", "persistentvolumeclaims"),
        Resource("apps/v1", "Deployment", "deployments"),
        Resource("apps/v1", "DaemonSet", "daemonsets"),
        Resource("batch/v1", "Job", "jobs"),
        Resource("batch/v1", "CronJob", "cronjobs"),
        Resource("networking.k8s.io/v1", "Ingress", "ingresses"),
        Resource("autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers"),
    )
}
KUBEFLOW = {
    r.kind: r
    for r in (Resource("kubeflow.org/v1", "PyTorchJob", "pytorchjobs"), Resource("kubeflow.org/v1", "TFJob", "tfjobs"))
}
EVENT = Resource("v1", "Event", "events")
LEASE = Resource("coordination.k8s.io/v1", "Lease", "leases")
NODE = Resource("v1", "Node", "nodes", namespaced=False)
CRD = Resource("apiextensions.k8s.io/v1", "CustomResourceDefinition", "customresourcedefinitions", namespaced=False)
PRIORITY_CLASS = Resource("scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", namespaced=False)
CLUSTER_ROLE = Resource("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", namespaced=False)


def cr_resource(kind: str, plural: str) -> Resource:
    return Resource(f"{GROUP}/{VERSION}", kind, plural)


class AdmissionRefused(PermanentError):
    """A write an admission refused (403: Pod Security, ResourceQuota): the member will not run what was asked, and
    ``said`` is its own message (the workload's ``Refused`` condition), not a fault of the operator."""

    def __init__(self, message: str, *, said: str) -> None:
        super().__init__(message)
        self.said = said


def classify(exc: ApiException | Urllib3Error | OSError) -> CoreError:
    """The core error a failed call means for the operator: the one mapping (``apierrors.service_error``), except
    that a manifest the apiserver refuses as invalid is the operator's own to fix, so a ``PermanentError``
    (Degraded) like any other refusal, never the user's 400, and that an admission's 403 is ``AdmissionRefused``."""
    mapped = apierrors.service_error(exc, delay=1.0)
    if isinstance(mapped, Invalid):
        return PermanentError(mapped.message, fields=mapped.fields)
    if isinstance(exc, ApiException) and is_admission_refusal(exc.status or 0, apierrors.said(exc)):
        return AdmissionRefused(mapped.message, said=apierrors.said(exc))
    return mapped


def operator_client(kubeconfig: str, context: str) -> client.ApiClient:
    """The operator's ApiClient for one context, from the one factory: a large pool (each watch holds a
    connection for its whole life), no default timeout (every request here sets its own), and urllib3's connect
    retries kept (a call here is tried once: the work queue backs off per key)."""
    return new_api_client(kubeconfig=kubeconfig, context=context, pool_size=48, urllib3_retries=True)


class Kube:
    """Raw JSON calls against one cluster; every method raises only core errors (or NotFound)."""

    def __init__(self, api: client.ApiClient, name: str) -> None:
        self.api, self.name = api, name

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except (ApiException, Urllib3Error, OSError) as exc:
            raise classify(exc) from exc

    def request(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        query: Mapping[str, str | int] | None = None,
        content_type: str = "application/json",
        timeout: Timeout = _TIMEOUT,
    ) -> dict[str, Any]:
        def go() -> dict[str, Any]:
            resp = rawapi.request(
                self.api, method, path, list((query or {}).items()), timeout, body=body, content_type=content_type
            )
            return rawapi.read_json(resp)

        return self._call(go)

    def get(self, res: Resource, namespace: str | None, name: str) -> dict[str, Any]:
        return self.request("GET", res.path(namespace, name))

    def list(
        self, res: Resource, *, namespace: str | None = None, selector: str | None = None, limit: int = 500
    ) -> dict[str, Any]:
        """All pages; returns a List with ``items`` and the last page's resourceVersion."""
        items: list[dict[str, Any]] = []
        cont: str | None = None
        while True:
            query: dict[str, str | int] = {"limit": limit}
            if selector:
                query["labelSelector"] = selector
            if cont:
                query["continue"] = cont
            page = self.request("GET", res.path(namespace), query=query)
            items.extend(page.get("items") or [])
            cont = (page.get("metadata") or {}).get("continue")
            if not cont:
                page["items"] = items
                return page

    def apply(self, obj: Mapping[str, Any], res: Resource) -> dict[str, Any]:
        """Server-side apply as the operator's field manager, forcing ownership of the fields it sets."""
        metadata = obj.get("metadata") or {}
        return self.request(
            "PATCH",
            res.path(metadata.get("namespace"), metadata["name"]),
            body=dict(obj),
            query={"fieldManager": FIELD_MANAGER, "force": "true"},
            content_type="application/apply-patch+yaml",
        )

    def patch(
        self,
        res: Resource,
        namespace: str | None,
        name: str,
        body: object,
        *,
        sub: str | None = None,
        strategic: bool = False,
    ) -> dict[str, Any]:
        kind = "application/strategic-merge-patch+json" if strategic else "application/merge-patch+json"
        return self.request(
            "PATCH", res.path(namespace, name, sub), body=body, content_type=kind, query={"fieldManager": FIELD_MANAGER}
        )

    def create(self, res: Resource, namespace: str | None, body: Mapping[str, Any]) -> dict[str, Any]:
        return self.request("POST", res.path(namespace), body=dict(body), query={"fieldManager": FIELD_MANAGER})

    def update(self, res: Resource, namespace: str | None, name: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self.request("PUT", res.path(namespace, name), body=dict(body), query={"fieldManager": FIELD_MANAGER})

    def delete(
        self,
        res: Resource,
        namespace: str | None,
        name: str,
        *,
        uid: str | None = None,
        grace_seconds: int | None = None,
    ) -> None:
        """Delete (background propagation); a uid precondition avoids deleting a successor by the same name."""
        body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"}
        if uid:
            body["preconditions"] = {"uid": uid}
        if grace_seconds is not None:
            body["gracePeriodSeconds"] = grace_seconds
        try:
            self.request("DELETE", res.path(namespace, name), body=body)
        except NotFound:
            return

    def exec(self, namespace: str, pod: str, container: str, command: tuple[str, ...]) -> podexec.ExecResult:
        """Run a short command in a container (``pods/exec``); the result says how it ended or why it could not."""
        return podexec.run(self.api.configuration, namespace, pod, container, command)

    def served_kinds(self, group_version: str) -> dict[str, str]:
        """{kind: plural} served under ``group_version`` (subresources skipped); {} when the group is absent."""
        path = f"/apis/{group_version}" if "/" in group_version else f"/api/{group_version}"
        try:
            doc = self.request("GET", path)
        except NotFound:
            return {}
        return {r["kind"]: r["name"] for r in doc.get("resources") or [] if "/" not in r.get("name", "")}
