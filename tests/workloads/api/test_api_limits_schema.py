"""Per-user rate limits (reads and writes counted apart, 429 with Retry-After in the one error body) and the
OpenAPI description: every workload, operation, insight and debugging path is in it, with examples."""

from __future__ import annotations

import pytest
import yaml

from tests.support.api_host import client_for
from tests.support.workloads_api import ONE, error

pytestmark = pytest.mark.django_db


@pytest.fixture
def low_limits(settings):
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "api-read": "3/min", "api-write": "2/min"}
    settings.REST_FRAMEWORK = rest


def test_reads_over_the_rate_are_429_with_retry_after(web, viewer, developer, low_limits):
    client = client_for(viewer)

    answers = [client.get(ONE).status_code for _ in range(3)]
    refused = client.get("/api/v1/workloads/")

    assert answers == [200, 200, 200]
    body = error(refused, 429)
    assert body["code"] == "throttled"
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert client_for(developer).get(ONE).status_code == 200  # per user: another user is not held back


def test_writes_are_counted_apart_from_reads(web, developer, low_limits):
    client = client_for(developer)

    writes = [client.post(f"{ONE}{op}/").status_code for op in ("pause", "resume", "pause")]
    read = client.get(ONE)

    assert writes[:2] == [200, 200] and writes[2] == 429
    assert read.status_code == 200
    assert "paused" in read.json()["spec"]["operations"] and read.json()["spec"]["operations"]["paused"] is False


def test_the_default_limits_are_set_and_overridable(settings):
    from rest_framework.settings import api_settings

    rates = api_settings.DEFAULT_THROTTLE_RATES
    assert rates["api-read"] and rates["api-write"] and rates["user"]


NEW_PATHS = {
    "/api/v1/workloads/": {"get"},
    "/api/v1/projects/{project}/workloads/": {"get", "post"},
    "/api/v1/projects/{project}/workloads/{kind}/{name}/": {"get", "put", "patch", "delete"},
    "/api/v1/projects/{project}/workloads/{kind}/{name}/timeline/": {"get"},
    "/api/v1/projects/{project}/timeline/": {"get"},
    "/api/v1/projects/{project}/pods/{cluster}/{pod}/": {"get"},
    **{
        f"/api/v1/projects/{{project}}/workloads/{{kind}}/{{name}}/{op}/": {"post"}
        for op in ("pause", "resume", "stop", "start", "restart", "restart-container", "scale")
    },
}


def test_every_new_path_is_in_the_openapi_schema_with_examples(client):
    response = client.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.load(response.content, Loader=yaml.CSafeLoader)

    for path, methods in NEW_PATHS.items():
        assert path in schema["paths"], path
        for method in methods:
            operation = schema["paths"][path][method]
            assert operation.get("description"), (path, method)
            bodies = [r.get("content", {}) for r in operation["responses"].values()]
            bodies.append(operation.get("requestBody", {}).get("content", {}))
            examples = [ex for content in bodies for media in content.values() for ex in media.get("examples", {})]
            assert examples or method == "delete", (path, method)
            assert {"401", "429"} <= set(operation["responses"]), (path, method)
    create = schema["paths"]["/api/v1/projects/{project}/workloads/"]["post"]["requestBody"]["content"]
    assert {"application/json", "application/yaml"} <= set(create)
    patch = schema["paths"]["/api/v1/projects/{project}/workloads/{kind}/{name}/"]["patch"]["requestBody"]["content"]
    assert "application/merge-patch+json" in patch
    assert schema["components"]["schemas"]["Workload"]["properties"].keys() >= {
        "version", "admission", "status", "shards", "createdAt",
    }  # fmt: skip


def test_the_api_root_links_the_workloads(client):
    assert client.get("/api/v1/").json()["workloads"].endswith("/api/v1/workloads/")
