"""Schemathesis over every operation of ``/api/schema/``, against the real app served over ASGI by uvicorn as in
production (``asgi_portal``: the real views, services, database and error handler; the host apiserver is the
workload API tests' fake, which mirrors writes into the host cache), authenticated as a project developer with a
real API token.

Every check of schemathesis is on (no 5xx, response schema conformance, status codes and content types
documented, negative data rejected, positive data accepted, auth not ignored, ...). One exception is written
down, with its reason: ``SEMANTIC_BODIES``."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies._internal.random  # noqa: F401 - see below
import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events, from_schema

from accounts.services import create_api_token
from tests.support import fake_configs
from tests.support.sdk import asgi_portal  # noqa: F401

# hypothesis imports its ``randoms()`` strategy module lazily, and that module imports hypothesis' core back: when
# schemathesis' 4 workers draw their first cases at once, one thread can be handed the half-imported module
# ("cannot import name 'RandomStrategy'", seen once in a clean-clone run). Imported above, before any worker starts.

pytestmark = pytest.mark.django_db(transaction=True)

# Bodies whose values the services check beyond any schema: a workload's spec (the kind's fields, images, zones,
# the project's grant: validated by the core), a container the workload has, a revision it has, the users and groups
# a new project lists. A schema-valid body can be refused there with a 400 naming the field; every other check stays on.
PLURALS = ("secrets", "configmaps")
SEMANTIC_BODIES = [
    "POST /api/v1/projects/",
    "POST /api/v1/projects/{project}/workloads/",
    "POST /api/v1/projects/{project}/workloads/preview/",
    "PUT /api/v1/projects/{project}/workloads/{kind}/{name}/",
    "PATCH /api/v1/projects/{project}/workloads/{kind}/{name}/",
    "POST /api/v1/projects/{project}/workloads/{kind}/{name}/restart-container/",
    "POST /api/v1/projects/{project}/workloads/{kind}/{name}/rollback/",
    "POST /api/v1/projects/{project}/pods/{cluster}/{pod}/debug/",  # a container the pod has, an allowed image
    "POST /api/v1/projects/{project}/robots/",  # a robot's name (a DNS label), its scopes, the lifetime's maximum
    "POST /api/v1/projects/{project}/robots/{robot}/rotate/",  # the lifetime's maximum (ROBOT_TOKEN_MAX_DAYS)
    # a Secret's or ConfigMap's name and keys (DNS-1123, Kubernetes' key characters), its size, a name taken
    *(f"{m} /api/v1/projects/{{project}}/{p}/{t}" for m, t in (("POST", ""), ("PUT", "{name}/")) for p in PLURALS),
    "POST /api/v1/projects/{name}/access-requests/",  # an access it names, a duration within the limits, a reason
    "POST /api/v1/projects/{name}/access-grants/",  # and a user who exists
    # a policy's registries (a host with an optional path prefix) and quantities (parsed as Kubernetes does)
    "PUT /api/v1/projects/{name}/policy/",
    "PUT /api/v1/policy-defaults/",
    # an on-call contact's forms (an email, @handle or #channel, an http(s) URL), a link's URL (no user or password)
    "PUT /api/v1/projects/{name}/ownership/",
    # a webhook's name (a DNS label), its URL (http(s), a host that resolves, not private), the event names it routes
    "POST /api/v1/projects/{project}/webhooks/",
    "PATCH /api/v1/projects/{project}/webhooks/{name}/",
    "PUT /api/v1/projects/{project}/webhooks/{name}/routes/",
]
# Query parameters whose values the service checks beyond any schema: a cost window's ISO range (a real date, the end
# after the start, at most 800 days and 2400 steps), a label selector's grammar (Kubernetes'), a log archive's time
# range (a duration or an RFC 3339 time, the start before the end). A schema-valid value can be refused there with a
# 400 naming it.
SEMANTIC_QUERIES = [
    "GET /api/v1/cost/",
    "GET /api/v1/projects/{project}/cost/",
    "GET /api/v1/use/",  # a workload or pod name holding a NUL
    "GET /api/v1/projects/{project}/use/",
    "GET /api/v1/clusters/{name}/capacity/",
    "GET /api/v1/workloads/",
    "GET /api/v1/projects/{project}/workloads/",
    "GET /api/v1/projects/{project}/pods/",
    "GET /api/v1/projects/{project}/logs/archive/",
    "GET /api/v1/search/",
    "GET /api/v1/projects/{project}/workloads/deleted/{kind}/{name}/",  # since/until times, kinds of entry
]
# Operations that reach a member cluster's apiserver, which this test's world fakes: its documented 422 (the member
# refused the object) or 503 (the member is unavailable) is their answer here.
MEMBER_REACHING = ["POST /api/v1/projects/{project}/pods/{cluster}/{pod}/debug/"]
MAX_EXAMPLES = 3
# A new workload's body is a oneOf of the eight kinds' typed documents (every spec field of the kind registry), a
# replacement's an anyOf of them: the coverage phase makes a case for each keyword of each field (5,757 requests, 525 s
# of this test's ~150 s before the specs were typed). Hypothesis' positive and negative cases, drawn per kind, cover
# them there instead.
TYPED_BODIES = {
    "POST /api/v1/projects/{project}/workloads/": 40,
    "PUT /api/v1/projects/{project}/workloads/{kind}/{name}/": 40,
    "POST /api/v1/projects/{project}/workloads/preview/": 40,
}


@pytest.fixture
def unthrottled(settings):
    """Per-user rates are tested on their own (tests/workloads/api); here they would only cut the run short."""
    rest = dict(settings.REST_FRAMEWORK)
    rates = {name: "100000/min" for name in rest["DEFAULT_THROTTLE_RATES"]}
    rest["DEFAULT_THROTTLE_RATES"] = rates
    settings.REST_FRAMEWORK = rest


def run_config(base_url: str, token: str) -> dict[str, Any]:
    semantic = [
        {
            "include-name": label,
            "checks": {
                "positive_data_acceptance": {
                    "expected-statuses": ["2xx", "3xx", "400", "401", "403", "404", "409", "429"]
                    + (["422", "503"] if label in MEMBER_REACHING else [])
                }
            },
            **typed_body(label),
        }
        for label in SEMANTIC_BODIES + SEMANTIC_QUERIES
    ]
    return {
        "base-url": base_url,
        "seed": 1,
        "workers": 4,  # the run waits on round trips, not CPU
        "auth": {"openapi": {"apiToken": {"bearer": token}}},
        "generation": {"max-examples": MAX_EXAMPLES, "mode": "all", "database": "none", "allow-x00": False},
        "checks": {"enabled": True},
        "phases": {"stateful": {"enabled": False}},
        "parameters": {"path.project": "ads", "path.cluster": "member-a", "path.pod": "web-local-1a-abc"},
        "operations": [
            {"include-path-regex": "^/api/v1/projects/[{]name[}]", "parameters": {"path.name": "ads"}},
            {"include-path-regex": "^/api/v1/clusters/", "parameters": {"path.name": "member-a"}},
            {"include-path-regex": "workloads/[{]kind[}]/[{]name[}]", "parameters": {"path.name": "web"}},
            *semantic,
        ],
    }


def typed_body(label: str) -> dict[str, Any]:
    if label not in TYPED_BODIES:
        return {}
    fuzzing = {"generation": {"max-examples": TYPED_BODIES[label]}}
    return {"phases": {"coverage": {"enabled": False}, "fuzzing": fuzzing}}


# python/cpython gh-106905 (CPython 3.11.7 here): the AST constructor's recursion counter can be left off by an earlier
# error in a threaded program, and a later compile raises this SystemError inside schemathesis' code generation
CPYTHON_AST_BUG = "AST constructor recursion depth mismatch"


def failures_of(stream: Any) -> tuple[list[str], set[str]]:
    """Every failed check and engine error, one line each, and the operations that were tested."""
    found: list[str] = []
    tested: set[str] = set()
    for event in stream:
        if isinstance(event, events.ScenarioFinished):
            tested.add(event.recorder.label)
            for checks in event.recorder.checks.values():
                for check in checks:
                    if check.status == Status.FAILURE and check.failure_info is not None:
                        failure = check.failure_info.failure
                        found.append(
                            f"{failure.operation}: {check.name}: {failure.title}\n{check.failure_info.code_sample}"
                        )
        elif isinstance(event, events.NonFatalError):
            if CPYTHON_AST_BUG in str(event.value):  # the interpreter's error inside schemathesis, not the portal's
                continue
            found.append(f"{event.label}: error: {event.value}")
        elif isinstance(event, events.FatalError):
            found.append(f"fatal: {event.exception}")
    return found, tested


def test_every_operation_keeps_the_contract(web, developer, asgi_portal, unthrottled, client, monkeypatch):  # noqa: F811
    fake_configs.install(monkeypatch)  # the project's Secrets and ConfigMaps (a host the fake host does not serve)
    _, token = create_api_token(user=developer, name="schemathesis", days=1)
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    config = SchemathesisConfig.from_dict(run_config(asgi_portal.url, token))
    schema = schemathesis.openapi.from_dict(document, config=config)

    failures, tested = failures_of(from_schema(schema).execute())

    operations = {f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item}
    assert operations <= tested, sorted(operations - tested)
    assert not failures, "\n\n".join(sorted(set(failures))[:30])
