"""The workload API's URLs, documents and the error body of an answer, shared by the API test modules."""

from __future__ import annotations

from typing import Any

from tests.support.api_host import client_for
from tests.support.factories import workload_cr

ONE = "/api/v1/projects/ads/workloads/PinApp/web/"


NEW = "/api/v1/projects/ads/workloads/"


def document(name: str = "shop", **kwargs: Any) -> dict[str, Any]:
    """A PinApp document as a user writes it (no status, no namespace)."""
    obj = workload_cr(name, **kwargs)
    obj.pop("status")
    obj["metadata"] = {"name": name, "labels": {"app": name}}
    for key in ("project", "team", "costCenter"):
        obj["spec"].pop(key)
    return obj


def error(response: Any, status: int) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == status, body
    assert set(body) == {"error"} and body["error"]["status"] == status
    return body["error"]


def paths(response: Any, status: int = 400) -> dict[str, str]:
    return {f["path"]: f["message"] for f in error(response, status)["fields"]}


DRY_RUN = "/api/v1/projects/ads/workloads/?dryRun=true"


def quiet(user: Any) -> Any:
    client = client_for(user)
    client.raise_request_exception = False
    return client
