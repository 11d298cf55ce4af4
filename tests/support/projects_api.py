"""The project API's refusal helpers: request bodies, the client of a user, the error fields of an answer, and a
snapshot of every project table (a refusal changes none)."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from base.models import AuditEvent
from projects.models import Membership, Project, QuotaRequest, TierQuota

GRANT = {"cpu": "1", "memory": "1Gi", "gpu": "0", "pods": "1"}


NONE = {"cpu": "0", "memory": "0", "gpu": "0", "pods": "0"}


CREATE = {"name": "search", "team": "search", "cost_center": "CC-9"}


def snapshot() -> dict[str, Any]:
    """Everything a refused call must leave as it was."""
    return {
        "projects": set(
            Project.objects.values_list(
                "name", "state", "display_name", "team", "cost_center", "description", "pod_security", "generation"
            )
        ),
        "members": set(Membership.objects.values_list("project__name", "user__username", "group__name", "role")),
        "grants": set(
            TierQuota.objects.values_list("project__name", "tier", "cpu_milli", "memory_bytes", "gpu", "pods")
        ),
        "requests": set(QuotaRequest.objects.values_list("pk", "state", "decided_by")),
        "audit": AuditEvent.objects.count(),
    }


def refused(response: Any, status: int) -> dict[str, Any]:
    """The one error body, with ``status``."""
    body = response.json()
    assert response.status_code == status, body
    assert set(body) == {"error"} and body["error"]["status"] == status
    assert {"code", "message", "fields", "request_id"} <= set(body["error"])
    return body["error"]


def fields(response: Any, status: int = 400) -> dict[str, str]:
    return {f["path"]: f["message"] for f in refused(response, status)["fields"]}


def as_(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client
