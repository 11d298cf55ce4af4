"""Read and write cluster state for the operator tests (the operator process is devtools.operator_process)."""

from __future__ import annotations

from pathlib import Path

from kubernetes import client

from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS
from pincompute.labels import FEDERATED_LABEL, HOST_UID_ANNOTATION, WORKLOAD_LABEL

ROOT = Path(__file__).resolve().parents[2]
PLURALS = {kind: info.plural for kind, info in KINDS.items()}


def custom(api: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api)


def get_cr(api: client.ApiClient, kind: str, namespace: str, name: str) -> dict | None:
    try:
        return custom(api).get_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name)
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise


def as_shard(cr: dict, host_uid: str = "3f0c2a4e-host") -> dict:
    """``cr`` marked as the federation marks the shards it propagates (``propagation.shard_manifest``): the member
    operator runs nothing from a workload object without these marks."""
    meta = cr.setdefault("metadata", {})
    meta["labels"] = {**(meta.get("labels") or {}), FEDERATED_LABEL: "true"}
    meta["annotations"] = {**(meta.get("annotations") or {}), HOST_UID_ANNOTATION: host_uid}
    return cr


def create_cr(api: client.ApiClient, cr: dict) -> dict:
    namespace = cr["metadata"]["namespace"]
    return custom(api).create_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[cr["kind"]], cr)


def patch_cr(api: client.ApiClient, kind: str, namespace: str, name: str, body: dict) -> dict:
    return custom(api).patch_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name, body)


def delete_cr(api: client.ApiClient, kind: str, namespace: str, name: str) -> None:
    custom(api).delete_namespaced_custom_object(GROUP, VERSION, namespace, PLURALS[kind], name)


def condition(cr: dict | None, type_: str) -> dict:
    for item in ((cr or {}).get("status") or {}).get("conditions") or []:
        if item.get("type") == type_:
            return item
    return {}


def is_ready(api: client.ApiClient, kind: str, namespace: str, name: str) -> dict | None:
    cr = get_cr(api, kind, namespace, name)
    if (
        cr
        and condition(cr, "Ready").get("status") == "True"
        and cr["status"].get("observedGeneration") == cr["metadata"]["generation"]
    ):
        return cr
    return None


def owned(api: client.ApiClient, namespace: str, workload: str) -> dict[str, list[dict]]:
    """Every managed object of the workload by kind (as plain dicts)."""
    selector = f"{WORKLOAD_LABEL}={workload}"
    sanitize = api.sanitize_for_serialization
    core, apps, batch = client.CoreV1Api(api), client.AppsV1Api(api), client.BatchV1Api(api)
    net, hpa = client.NetworkingV1Api(api), client.AutoscalingV2Api(api)
    lists = {
        "Pod": core.list_namespaced_pod,
        "Service": core.list_namespaced_service,
        "ConfigMap": core.list_namespaced_config_map,
        "PersistentVolumeClaim": core.list_namespaced_persistent_volume_claim,
        "Deployment": apps.list_namespaced_deployment,
        "DaemonSet": apps.list_namespaced_daemon_set,
        "Job": batch.list_namespaced_job,
        "CronJob": batch.list_namespaced_cron_job,
        "Ingress": net.list_namespaced_ingress,
        "HorizontalPodAutoscaler": hpa.list_namespaced_horizontal_pod_autoscaler,
    }
    result = {}
    for kind, fn in lists.items():
        items = [sanitize(o) for o in fn(namespace, label_selector=selector).items]
        if items:
            result[kind] = items
    return result
