"""The operation endpoints' bodies, as their schema states them: pause, resume, start, stop and restart take
none (no body, or ``{}``); scale and restart-container only their fields. An unknown field, another JSON type
or a value that cannot be what it names (a pod that is not one of the workload's, a path for a pod's name) is a
400 naming it, and nothing is written."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from base.models import AuditEvent
from tests.support.api_host import client_for
from tests.support.fake_host import pod

pytestmark = pytest.mark.django_db
ONE = "/api/v1/projects/ads/workloads/PinApp/web/"
BODILESS = ["pause", "resume", "start", "stop", "restart"]


def refused(response: Any) -> dict[str, str]:
    body = response.json()
    assert response.status_code == 400, body
    assert body["error"]["code"] == "invalid"
    return {f["path"]: f["message"] for f in body["error"]["fields"]}


@pytest.fixture
def unchanged(web):
    """Asserts that the test wrote nothing to the host and audited nothing."""
    before = copy.deepcopy(web.objects)
    yield
    assert web.objects == before
    assert not AuditEvent.objects.filter(action__startswith="workload.").exists()


@pytest.mark.parametrize("operation", BODILESS)
def test_a_bodiless_operation_takes_no_body_or_an_empty_object(web, developer, operation):
    client = client_for(developer)

    assert client.post(f"{ONE}{operation}/").status_code == 200
    assert client.post(f"{ONE}{operation}/", {}, format="json").status_code == 200


@pytest.mark.parametrize("operation", BODILESS)
@pytest.mark.parametrize(
    ("body", "field"),
    [({"x": 1}, "x"), ({"replicas": 3}, "replicas"), ({"container": "app"}, "container")],
)
def test_a_bodiless_operation_refuses_any_field_naming_it(web, developer, unchanged, operation, body, field):
    assert field in refused(client_for(developer).post(f"{ONE}{operation}/", body, format="json"))


@pytest.mark.parametrize("operation", BODILESS)
@pytest.mark.parametrize("raw", ['"x"', "[]", "[{}]", "1", "true", "null"])
def test_a_body_that_is_not_an_object_is_refused_naming_the_document(web, developer, unchanged, operation, raw):
    response = client_for(developer).post(f"{ONE}{operation}/", raw, content_type="application/json")

    assert "document" in refused(response)


def test_a_yaml_body_is_held_to_the_same_contract(web, developer, unchanged):
    client = client_for(developer)

    fields = refused(client.post(f"{ONE}pause/", yaml.safe_dump({"x": 1}), content_type="application/yaml"))
    assert "x" in fields


@pytest.mark.parametrize(
    ("operation", "body", "field"),
    [
        ("scale", {"replicas": 2, "x": 1}, "x"),
        ("scale", {"replicas": "2"}, "replicas"),
        ("scale", "2", "document"),
        ("restart-container", {"container": "app", "x": 1}, "x"),
        ("restart-container", {"container": 5}, "container"),
        ("restart-container", {"container": "app", "pod": 5}, "pod"),
        ("restart-container", ["app"], "document"),
    ],
)
def test_scale_and_restart_container_take_only_their_fields(web, developer, unchanged, operation, body, field):
    assert field in refused(client_for(developer).post(f"{ONE}{operation}/", body, format="json"))


@pytest.mark.parametrize(
    "pod_name",
    ["../../x", "web-local-1a-abc/../x", "Web-local-1a-abc", "web local", "-web", "a" * 254, "web-local-1a-abc\n"],
)
def test_a_pod_that_is_no_pods_name_is_refused_naming_pod(web, developer, unchanged, pod_name):
    response = client_for(developer).post(
        f"{ONE}restart-container/", {"container": "app", "pod": pod_name}, format="json"
    )

    assert "pod" in refused(response)


def test_a_pod_that_is_not_one_of_the_workloads_pods_is_refused_naming_pod(web, developer, caches, unchanged):
    caches["member-a"].put("pods", pod("waiting-local-1a-xyz", workload="waiting"))  # another workload's
    client = client_for(developer)

    for name in ("web-local-1a-zzz", "waiting-local-1a-xyz", "web-local-1a-abc.proj-ads"):
        fields = refused(client.post(f"{ONE}restart-container/", {"container": "app", "pod": name}, format="json"))
        assert "one of the workload's pods" in fields["pod"], name


@pytest.mark.parametrize("container", ["../x", "App", "app-", "a" * 64, "app\n", ""])
def test_a_container_that_is_no_containers_name_is_refused_naming_container(web, developer, unchanged, container):
    response = client_for(developer).post(f"{ONE}restart-container/", {"container": container}, format="json")

    assert "container" in refused(response)


def test_one_pod_of_the_workload_or_every_pod_is_restarted(web, developer):
    client = client_for(developer)

    one = client.post(f"{ONE}restart-container/", {"container": "app", "pod": "web-local-1a-abc"}, format="json")
    every = client.post(f"{ONE}restart-container/", {"container": "app", "pod": ""}, format="json")

    assert one.status_code == every.status_code == 200, (one.json(), every.json())
    assert one.json()["spec"]["operations"]["restartContainer"]["pod"] == "web-local-1a-abc"
    assert not every.json()["spec"]["operations"]["restartContainer"].get("pod")  # the earlier pod is dropped


def test_the_page_refuses_a_pod_that_is_not_the_workloads_inline(web, developer, client, unchanged):
    client.force_login(developer)
    url = "/workloads/ads/PinApp/web/operate/restart-container/"

    for name in ("../../x", "web-local-1a-zzz"):
        response = client.post(url, {"container": "app", "pod": name}, HTTP_HX_REQUEST="true")
        assert response.status_code == 400 and 'data-error-status="400"' in response.content.decode(), name


def test_the_schema_states_the_bodies(client):
    schema = yaml.load(client.get("/api/schema/").content, Loader=yaml.CSafeLoader)
    base = "/api/v1/projects/{project}/workloads/{kind}/{name}"
    components = schema["components"]["schemas"]

    def body(operation: str) -> tuple[dict[str, Any], bool]:
        request = schema["paths"][f"{base}/{operation}/"]["post"]["requestBody"]
        ref = request["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        return components[ref], bool(request.get("required"))

    for operation in BODILESS:
        shape, required = body(operation)
        assert not required and shape["additionalProperties"] is False and not shape.get("properties"), operation
    restart, _ = body("restart-container")
    assert restart["additionalProperties"] is False and set(restart["properties"]) == {"container", "pod"}
    assert restart["properties"]["pod"]["pattern"] and restart["properties"]["container"]["pattern"]
    scale, required = body("scale")
    assert required and set(scale["properties"]) == {"replicas"} and scale["additionalProperties"] is False


def test_no_pods_known_means_no_pod_can_be_named(web, developer, caches, unchanged):
    caches.pop("member-a")  # its pods are not known (no cache): a pod cannot be checked, so it is refused

    response = client_for(developer).post(
        f"{ONE}restart-container/", {"container": "app", "pod": "web-local-1a-abc"}, format="json"
    )

    assert "pod" in refused(response)


def test_a_refused_pod_says_when_a_clusters_pods_are_not_known_yet(web, developer, caches, unchanged):
    caches["member-b"].synced = False

    response = client_for(developer).post(
        f"{ONE}restart-container/", {"container": "app", "pod": "web-local-1b-new"}, format="json"
    )

    assert "member-b" in refused(response)["pod"]
