"""Submission against the real host: a PinApp manifest and what the host holds for it."""

from __future__ import annotations

from kubernetes import client

from pincompute import GROUP, VERSION

APP = {"name": "app", "image": "registry.local/ads/app:1", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}


def pinapp(name="web", **spec):
    return {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinApp",
        "metadata": {"name": name},
        "spec": {"replicas": 2, "zones": ["local-1a"], "template": {"containers": [APP]}, **spec},
    }


def on_host(api, project, kind="pinapps", name="web"):
    try:
        return client.CustomObjectsApi(api).get_namespaced_custom_object(GROUP, VERSION, project.namespace, kind, name)
    except client.ApiException as exc:
        if exc.status == 404:
            return None
        raise
