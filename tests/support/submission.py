"""Submission against the real host: a PinApp manifest and what the host holds for it."""

from __future__ import annotations

import uuid

from kubernetes import client

from pincompute import GROUP, VERSION
from tests.support.provisioning import onboard

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


def owner_developer_viewer_project(prefix, admin_user, user, other_user):
    """A project with a 4-CPU OnDemand grant: ``admin_user`` owns it, ``user`` develops, ``other_user`` views."""
    return onboard(
        f"{prefix}-{uuid.uuid4().hex[:6]}",
        admin_user,
        members=[
            ("user", admin_user.username, "owner"),
            ("user", user.username, "developer"),
            ("user", other_user.username, "viewer"),
        ],
        grants={"ondemand": ("4", "8Gi", "0", "0")},
    )
