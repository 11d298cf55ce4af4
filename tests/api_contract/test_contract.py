"""The OpenAPI description against itself and against the API's answers: every documented example validates
against the schema it illustrates, and the happy path of every readable endpoint answers what the schema says
(schemathesis' response validation over the real WSGI app)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from schemathesis.specs.openapi.converter import to_json_schema
from werkzeug.test import Client

from accounts.services import create_api_token
from tests.support.sessions import session_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def document(client) -> dict[str, Any]:
    return client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def examples_of(document: dict[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
    """(where, the schema, the example) for every example of every request and response body."""
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            bodies = [("request", operation.get("requestBody", {}))]
            bodies += [(status, answer) for status, answer in operation["responses"].items()]
            for where, body in bodies:
                for media, content in body.get("content", {}).items():
                    for name, example in content.get("examples", {}).items():
                        label = f"{method.upper()} {path} {where} {media} {name}"
                        found.append((label, content["schema"], example["value"]))
    return found


def test_every_documented_example_validates_against_its_own_schema(document):
    schemas = document["components"]["schemas"]
    examples = examples_of(document)

    problems = []
    for label, schema, value in examples:
        response = " request " not in label  # readOnly fields belong in answers, writeOnly ones in requests
        components = {name: to_json_schema(s, "nullable", is_response_schema=response) for name, s in schemas.items()}
        root = {
            **to_json_schema(schema, "nullable", is_response_schema=response),
            "components": {"schemas": components},
        }
        problems += [
            f"{label}: {e.json_path}: {e.message}" for e in jsonschema.Draft202012Validator(root).iter_errors(value)
        ]

    assert len(examples) >= 30  # the workload, operation, insight, debugging and project examples
    assert not problems, "\n".join(problems)


READS = [
    "/api/v1/me/",
    "/api/v1/tokens/",
    "/api/v1/clusters/",
    "/api/v1/clusters/member-a/",
    "/api/v1/projects/",
    "/api/v1/projects/ads/",
    "/api/v1/projects/ads/members/",
    "/api/v1/projects/ads/members/user/vic/",
    "/api/v1/projects/ads/quota/",
    "/api/v1/projects/ads/quota/fit/",
    "/api/v1/projects/ads/network/",
    "/api/v1/projects/ads/ownership/",
    "/api/v1/quota-requests/",
    "/api/v1/workloads/",
    "/api/v1/workloads/?limit=1",
    "/api/v1/projects/ads/workloads/",
    "/api/v1/projects/ads/workloads/PinApp/web/",
    "/api/v1/projects/ads/workloads/pinapps/web/timeline/",
    "/api/v1/projects/ads/timeline/?since=2026-11-22T00:00:00Z",
    "/api/v1/projects/ads/pods/member-a/web-local-1a-abc/",
]
WRITES = [
    ("post", "/api/v1/projects/ads/workloads/PinApp/web/pause/", None),
    ("post", "/api/v1/projects/ads/workloads/PinApp/web/scale/", {"replicas": 3}),
    ("patch", "/api/v1/projects/ads/workloads/PinApp/web/", {"metadata": {"labels": {"team": "ads"}}}),
    ("delete", "/api/v1/projects/ads/workloads/PinApp/web/", None),
]


@pytest.fixture
def same_connection():
    """The WSGI app runs in this thread, inside the test's transaction: keep Django from closing the connection at
    each request's start and end (as its own test client does)."""
    signals = (request_started, request_finished)
    for signal in signals:
        signal.disconnect(close_old_connections)
    yield
    for signal in signals:
        signal.connect(close_old_connections)


def signed_in_session(user: Any) -> str:
    return next(iter(session_for(user).values()))


def test_the_happy_paths_answer_what_the_schema_says(web, owner, document, same_connection):
    _, token = create_api_token(user=owner, name="happy", days=1)
    session_id = signed_in_session(owner)  # tokens are made in a session (a token cannot create tokens)
    app = Client(get_wsgi_application())
    headers = {"Authorization": f"Bearer {token}", "Host": "testserver"}
    schema = schemathesis.openapi.from_dict(document)

    statuses = []
    for url in READS:
        response = app.get(url, headers=headers)
        statuses.append((url, response.status_code))
        schema.find_operation_by_path("GET", url.split("?")[0]).validate_response(response)
    for method, url, body in WRITES:
        response = getattr(app, method)(url, json=body, headers=headers)
        statuses.append((url, response.status_code))
        schema.find_operation_by_path(method.upper(), url).validate_response(response)

    csrf = "c" * 32
    app.set_cookie("sessionid", session_id, domain="testserver")
    app.set_cookie("csrftoken", csrf, domain="testserver")
    response = app.post(
        "/api/v1/tokens/", json={"name": "contract"}, headers={"Host": "testserver", "X-CSRFToken": csrf}
    )
    statuses.append(("/api/v1/tokens/", response.status_code))
    schema.find_operation_by_path("POST", "/api/v1/tokens/").validate_response(response)

    assert all(200 <= code < 300 for _, code in statuses), [s for s in statuses if not 200 <= s[1] < 300]


def test_the_schema_states_what_the_server_requires(document):
    schemas = document["components"]["schemas"]
    workload = document["paths"]["/api/v1/projects/{project}/workloads/{kind}/{name}/"]
    create = document["paths"]["/api/v1/projects/{project}/workloads/"]["post"]
    app = schemas["PinAppSpec"]

    assert schemas["NewDocumentRequest"]["discriminator"]["mapping"]["PinApp"].endswith("/PinAppDocument")
    assert set(schemas["PinAppDocument"]["required"]) == {"apiVersion", "kind", "metadata", "spec"}
    assert "name" in schemas["NewMetadataRequest"]["required"]
    assert schemas["DocumentRequest"]["anyOf"][1] == {"$ref": "#/components/schemas/PinAppReplacement"}
    assert set(schemas["PinAppReplacement"]["required"]) == {"apiVersion", "spec"}  # kind and name: the URL's
    assert schemas["PinAppReplacement"]["properties"]["spec"] == {"$ref": "#/components/schemas/PinAppSpec"}
    assert schemas["TypedWorkload"]["discriminator"]["mapping"]["PinApp"].endswith("/PinAppWorkload")
    assert schemas["PinAppWorkload"]["properties"]["spec"]["allOf"] == [{"$ref": "#/components/schemas/PinAppSpec"}]
    answered = workload["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert answered == {"$ref": "#/components/schemas/TypedWorkload"}
    assert schemas["WorkloadPage"]["properties"]["results"]["items"] == answered
    assert app["required"] == ["template", "zones"]  # spec.project comes from the URL
    assert app["additionalProperties"] is False and app["properties"]["team"]["nullable"] is True
    assert app["properties"]["template"]["properties"]["containers"]["items"]["properties"]["livenessProbe"][
        "additionalProperties"
    ]
    surge = app["properties"]["rollout"]["properties"]["maxSurge"]
    assert [option["type"] for option in surge["anyOf"]] == ["integer", "string"]
    assert app["properties"]["operations"]["properties"]["restartedAt"]["format"] == "date-time"
    names = {p["name"]: p["schema"] for p in workload["get"]["parameters"] if p["in"] == "path"}
    assert names["name"]["pattern"] == "^[a-z]([-a-z0-9]*[a-z0-9])?$" and names["name"]["maxLength"] == 40
    assert names["project"]["pattern"] == "^[a-z]([-a-z0-9]*[a-z0-9])?$"
    assert "ETag" in workload["get"]["responses"]["200"]["headers"]
    assert "ETag" in create["responses"]["201"]["headers"]
    assert "Retry-After" in create["responses"]["503"]["headers"]
    assert "Retry-After" in create["responses"]["429"]["headers"]


CONSTRAINTS = {"pattern", "enum", "minimum", "maximum", "maxLength"}


def test_every_operation_with_a_constrained_header_or_query_documents_the_400_for_a_bad_one(document):
    """A malformed If-Match on DELETE was a 400 the schema did not list (schemathesis found it with `If-Match:`)."""
    missing = [
        f"{method.upper()} {path}"
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict)
        and any(
            p.get("in") in {"header", "query"} and CONSTRAINTS & set(p.get("schema", {}))
            for p in operation.get("parameters", [])
        )
        and "400" not in operation["responses"]
    ]

    assert not missing, missing
