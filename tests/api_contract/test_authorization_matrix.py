"""Who may call what: every operation of the OpenAPI schema (a new one without a row fails here) x every kind of
caller, each with a real API token (or none, or a bad one). Refusals change nothing; another tenant's objects are
a 404 whose body carries none of their data."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import create_api_token, revoke_api_token
from base.models import AuditEvent
from projects.access_requests.services import grant_access, request_access
from projects.members import MemberInput, remove_member, set_member
from robots.services import create_robot
from tests.support import fake_configs
from tests.support.factories import workload_cr
from tests.support.fake_host import pod
from webhooks.models import Webhook

pytestmark = pytest.mark.django_db
DEBUGGER = "debugger-abcde"

ANYONE, ADMIN, PROJECT_READ, PROJECT_WRITE, OWNERS, PROJECT_ADMIN, REQUEST_ADMIN = (
    "anyone signed in",
    "platform admins",
    "project members",
    "developers and up",
    "owners and up",
    "members see it, platform admins do it",
    "platform admins decide",
)
# Every operation of /api/schema/ and who may call it.
MATRIX = {
    "GET /api/v1/audit/": ADMIN,
    "GET /api/v1/audit/{id}/": ADMIN,
    "GET /api/v1/clusters/": ANYONE,
    "GET /api/v1/clusters/{name}/": ANYONE,
    "PATCH /api/v1/clusters/{name}/": ADMIN,
    "PUT /api/v1/clusters/{name}/pools/{kind}/": ADMIN,
    "GET /api/v1/clusters/{name}/capacity/": ANYONE,
    "GET /api/v1/clusters/{name}/maintenance/": ADMIN,
    "POST /api/v1/clusters/{name}/cordon/": ADMIN,
    "POST /api/v1/clusters/{name}/drain/": ADMIN,
    "POST /api/v1/clusters/{name}/uncordon/": ADMIN,
    "POST /api/v1/clusters/{name}/nodes/{verb}/": ADMIN,
    "GET /api/v1/version/": ANYONE,
    "GET /api/v1/search/": ANYONE,
    "GET /api/v1/cost/": ANYONE,
    "GET /api/v1/prices/": ANYONE,
    "PUT /api/v1/prices/{tier}/": ADMIN,
    "GET /api/v1/projects/{project}/cost/": PROJECT_READ,
    "GET /api/v1/use/": ANYONE,
    "GET /api/v1/projects/{project}/use/": PROJECT_READ,
    "GET /api/v1/me/": ANYONE,
    "GET /api/v1/notifications/": ANYONE,  # the caller's own only
    "POST /api/v1/notifications/{id}/read/": ANYONE,  # another user's is a 404 (tests/notifications)
    "POST /api/v1/notifications/read-all/": ANYONE,
    "GET /api/v1/notifications/preferences/": ANYONE,
    "PUT /api/v1/notifications/preferences/": ANYONE,
    "GET /api/v1/projects/": ANYONE,
    "POST /api/v1/projects/": ANYONE,
    "GET /api/v1/projects/{name}/": PROJECT_READ,
    "PATCH /api/v1/projects/{name}/": OWNERS,
    "POST /api/v1/projects/{name}/archive/": OWNERS,
    "GET /api/v1/projects/{name}/members/": PROJECT_READ,
    "GET /api/v1/projects/{name}/members/{kind}/{member}/": PROJECT_READ,
    "PUT /api/v1/projects/{name}/members/{kind}/{member}/": OWNERS,
    "GET /api/v1/projects/{project}/robots/": OWNERS,
    "POST /api/v1/projects/{project}/robots/": OWNERS,
    "GET /api/v1/projects/{project}/robots/{robot}/": OWNERS,
    "DELETE /api/v1/projects/{project}/robots/{robot}/": OWNERS,
    "POST /api/v1/projects/{project}/robots/{robot}/rotate/": OWNERS,
    "GET /api/v1/projects/{project}/webhooks/": OWNERS,
    "POST /api/v1/projects/{project}/webhooks/": OWNERS,
    "GET /api/v1/projects/{project}/webhooks/{name}/": OWNERS,
    "PATCH /api/v1/projects/{project}/webhooks/{name}/": OWNERS,
    "DELETE /api/v1/projects/{project}/webhooks/{name}/": OWNERS,
    "PUT /api/v1/projects/{project}/webhooks/{name}/routes/": OWNERS,
    "GET /api/v1/projects/{project}/webhooks/{name}/deliveries/": OWNERS,
    "POST /api/v1/projects/{project}/webhooks/{name}/test/": OWNERS,
    "DELETE /api/v1/projects/{name}/members/{kind}/{member}/": OWNERS,
    "GET /api/v1/projects/{name}/network/": PROJECT_READ,
    "PUT /api/v1/projects/{name}/network/": OWNERS,
    "GET /api/v1/projects/{name}/ownership/": PROJECT_READ,
    "PUT /api/v1/projects/{name}/ownership/": OWNERS,
    "GET /api/v1/projects/{name}/policy/": PROJECT_READ,
    "PUT /api/v1/projects/{name}/policy/": PROJECT_ADMIN,
    "GET /api/v1/policy-defaults/": ADMIN,
    "PUT /api/v1/policy-defaults/": ADMIN,
    "GET /api/v1/projects/{name}/quota/": PROJECT_READ,
    "GET /api/v1/projects/{name}/quota/fit/": PROJECT_READ,
    "PUT /api/v1/projects/{name}/quota/{tier}/": OWNERS,
    "POST /api/v1/projects/{name}/quota/{tier}/forced-decrease/": PROJECT_ADMIN,
    "POST /api/v1/projects/{name}/quota/{tier}/forced-decrease/preview/": PROJECT_ADMIN,
    "GET /api/v1/projects/{project}/pods/": PROJECT_READ,
    "GET /api/v1/projects/{project}/pods/{cluster}/{pod}/": PROJECT_READ,
    "POST /api/v1/projects/{project}/pods/{cluster}/{pod}/debug/": PROJECT_WRITE,
    "GET /api/v1/projects/{project}/pods/{cluster}/{pod}/debug/{name}/": PROJECT_WRITE,  # a shell's: not viewers
    "GET /api/v1/projects/{project}/logs/archive/": PROJECT_READ,
    "GET /api/v1/projects/{project}/timeline/": PROJECT_READ,
    "GET /api/v1/projects/{project}/workloads/": PROJECT_READ,
    "POST /api/v1/projects/{project}/workloads/": PROJECT_WRITE,
    "POST /api/v1/projects/{project}/workloads/preview/": PROJECT_READ,  # a preview writes nothing
    "GET /api/v1/projects/{project}/workloads/{kind}/{name}/": PROJECT_READ,
    "PUT /api/v1/projects/{project}/workloads/{kind}/{name}/": PROJECT_WRITE,
    "PATCH /api/v1/projects/{project}/workloads/{kind}/{name}/": PROJECT_WRITE,
    "DELETE /api/v1/projects/{project}/workloads/{kind}/{name}/": PROJECT_WRITE,
    **{
        op: who
        for plural in ("secrets", "configmaps")
        for op, who in {
            f"GET /api/v1/projects/{{project}}/{plural}/": PROJECT_READ,
            f"POST /api/v1/projects/{{project}}/{plural}/": PROJECT_WRITE,
            f"GET /api/v1/projects/{{project}}/{plural}/{{name}}/": PROJECT_READ
            if plural == "configmaps"
            else PROJECT_WRITE,
            f"PUT /api/v1/projects/{{project}}/{plural}/{{name}}/": PROJECT_WRITE,
            f"DELETE /api/v1/projects/{{project}}/{plural}/{{name}}/": PROJECT_WRITE,
        }.items()
    },
    **{
        f"POST /api/v1/projects/{{project}}/workloads/{{kind}}/{{name}}/{op}/": PROJECT_WRITE
        for op in ("pause", "resume", "stop", "start", "restart", "restart-container", "scale")
    },
    "GET /api/v1/projects/{project}/workloads/{kind}/{name}/timeline/": PROJECT_READ,
    "GET /api/v1/projects/{project}/workloads/{kind}/{name}/diagnosis/": PROJECT_READ,
    "GET /api/v1/projects/{project}/workloads/{kind}/{name}/recommendations/": PROJECT_READ,  # applying: the PUT
    "GET /api/v1/projects/{project}/workloads/deleted/": PROJECT_READ,
    "GET /api/v1/projects/{project}/workloads/deleted/{kind}/{name}/": PROJECT_READ,
    "POST /api/v1/projects/{project}/workloads/{kind}/{name}/rollback/": PROJECT_WRITE,
    "GET /api/v1/projects/{name}/access-requests/": PROJECT_READ,
    "POST /api/v1/projects/{name}/access-requests/": PROJECT_READ,  # any member asks
    "POST /api/v1/projects/{name}/access-requests/{request_id}/approve/": OWNERS,
    "POST /api/v1/projects/{name}/access-requests/{request_id}/deny/": OWNERS,
    "GET /api/v1/projects/{name}/access-grants/": PROJECT_READ,
    "POST /api/v1/projects/{name}/access-grants/": OWNERS,
    "DELETE /api/v1/projects/{name}/access-grants/{grant_id}/": OWNERS,  # and the holder
    "GET /api/v1/quota-requests/": ANYONE,
    "GET /api/v1/quota-requests/{id}/": PROJECT_READ,
    "POST /api/v1/quota-requests/{id}/approve/": REQUEST_ADMIN,
    "POST /api/v1/quota-requests/{id}/reject/": REQUEST_ADMIN,
    "GET /api/v1/tokens/": ANYONE,
    "POST /api/v1/tokens/": ANYONE,
    "DELETE /api/v1/tokens/{id}/": ANYONE,
    "GET /api/v1/workloads/": ANYONE,
}
MEMBERS = ("viewer", "developer", "owner")
# What each audience answers each member role and outsiders (None: allowed).
REFUSED = {
    ANYONE: {},
    ADMIN: {"outsider": 403, "viewer": 403, "developer": 403, "owner": 403},
    PROJECT_READ: {"outsider": 404},
    PROJECT_WRITE: {"outsider": 404, "viewer": 403},
    OWNERS: {"outsider": 404, "viewer": 403, "developer": 403},
    PROJECT_ADMIN: {"outsider": 404, "viewer": 403, "developer": 403, "owner": 403},
    REQUEST_ADMIN: {"outsider": 404, "viewer": 403, "developer": 403, "owner": 403},
}
BODIES = {
    **{
        f"POST /api/v1/projects/{{project}}/{p}/": {"name": "new", "data": {"k": "v"}}
        for p in ("secrets", "configmaps")
    },
    **{f"PUT /api/v1/projects/{{project}}/{p}/{{name}}/": {"data": {"k": "v"}} for p in ("secrets", "configmaps")},
    "PATCH /api/v1/clusters/{name}/": {"schedulable": False},
    "PUT /api/v1/clusters/{name}/pools/{kind}/": {"cpu": "1", "memory": "1Gi", "gpu": "0"},
    "POST /api/v1/clusters/{name}/nodes/{verb}/": {"node": "kwok-node-0"},
    "PUT /api/v1/prices/{tier}/": {"cpu": "0.05"},
    "PATCH /api/v1/projects/{name}/": {"description": "changed"},
    "PUT /api/v1/projects/{name}/members/{kind}/{member}/": {"role": "owner"},
    "PUT /api/v1/projects/{name}/network/": {"openings": [{"port": 8080, "ingress": True}]},
    "PUT /api/v1/projects/{name}/ownership/": {"oncall": "@ads", "links": [{"title": "Docs", "url": "https://d.example"}]},
    "PUT /api/v1/projects/{name}/policy/": {"allowedKinds": ["PinApp"], "sidecarExec": False},
    "PUT /api/v1/policy-defaults/": {"notifyOnShell": True},
    "POST /api/v1/projects/{project}/robots/": {"name": "ci", "scopes": ["read"]},
    "POST /api/v1/projects/{project}/robots/{robot}/rotate/": {},
    "POST /api/v1/projects/{project}/webhooks/": {"name": "new", "url": "http://127.0.0.1:9/"},
    "PATCH /api/v1/projects/{project}/webhooks/{name}/": {"enabled": False},
    "PUT /api/v1/projects/{project}/webhooks/{name}/routes/": {"events": []},
    "PUT /api/v1/projects/{name}/quota/{tier}/": {"cpu": "1", "memory": "1Gi", "gpu": "0", "pods": "1"},
    "POST /api/v1/projects/{name}/quota/{tier}/forced-decrease/": {
        "cpu": "0", "memory": "0", "gpu": "0", "pods": "0", "reason": "r", "confirm": "x",
    },
    "POST /api/v1/projects/{name}/quota/{tier}/forced-decrease/preview/": {
        "cpu": "0", "memory": "0", "gpu": "0", "pods": "0",
    },
    "POST /api/v1/projects/{project}/workloads/": {
        "kind": "PinApp", "metadata": {"name": "new"}, "spec": {"replicas": 1},
    },
    "POST /api/v1/projects/{project}/workloads/preview/": {
        "kind": "PinApp", "metadata": {"name": "new"}, "spec": {"replicas": 1},
    },
    "PUT /api/v1/projects/{project}/workloads/{kind}/{name}/": {"spec": {"replicas": 1}},
    "PATCH /api/v1/projects/{project}/workloads/{kind}/{name}/": {"spec": {"replicas": 1}},
    "POST /api/v1/projects/{project}/workloads/{kind}/{name}/restart-container/": {"container": "app"},
    "POST /api/v1/projects/{project}/workloads/{kind}/{name}/scale/": {"replicas": 1},
    "POST /api/v1/projects/{project}/workloads/{kind}/{name}/rollback/": {"revision": 1},
    "POST /api/v1/quota-requests/{id}/reject/": {"reason": "no"},
    "POST /api/v1/quota-requests/{id}/approve/": {"reason": "ok"},
    "POST /api/v1/projects/{name}/access-requests/": {"access": "owner", "duration_seconds": 3600, "reason": "r"},
    "POST /api/v1/projects/{name}/access-requests/{request_id}/approve/": {"reason": "ok"},
    "POST /api/v1/projects/{name}/access-requests/{request_id}/deny/": {"reason": "no"},
    "POST /api/v1/projects/{name}/access-grants/": {
        "user": "dev2", "access": "viewer", "duration_seconds": 3600, "reason": "r",
    },
    "PUT /api/v1/notifications/preferences/": {"digest": False},
}  # fmt: skip


def schema_operations(client: Any) -> set[str]:
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    return {f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item}


def test_every_operation_of_the_schema_has_a_row(client):
    operations = schema_operations(client)

    assert not operations - MATRIX.keys(), f"operations without a row: {sorted(operations - MATRIX.keys())}"
    assert not MATRIX.keys() - operations, f"rows of no operation: {sorted(MATRIX.keys() - operations)}"


@pytest.fixture
def world(
    web,
    caches,
    project,
    other_project,
    owner,
    developer,
    viewer,
    admin_user,
    other_user,
    django_user_model,
    monkeypatch,
):
    """``ads`` with its members and a pod with a debug container; ``ml`` (another tenant) with a workload and a quota
    request; a removed member."""
    from projects.quota import change_quota
    from tests.support.factories import fill  # noqa: F401  (the caches the fixtures filled)

    debugged = pod("web-local-1a-abc")
    debugged["spec"]["ephemeralContainers"] = [
        {"name": DEBUGGER, "image": "busybox:1.37", "targetContainerName": "app"}
    ]
    caches["member-a"].put("pods", debugged)

    web.put(workload_cr("secret-train", project="ml"))
    fake_configs.install(monkeypatch)
    for owned_by, name in ((project, "web"), (other_project, "secret-train")):  # deleted ones, history kept
        deleted(owned_by, name)
    removed = django_user_model.objects.create_user("gone", "gone@example.com", "pw-gone-Secret!")
    set_member(project, MemberInput("user", removed.username, "developer"), actor=owner)
    remove_member(project, "user", removed.username, actor=owner)
    ads_request = change_quota(project, "ondemand", _grant("64"), actor=owner, reason="more").request
    create_robot(project, name="deploy-bot", scopes=["read"], days=1, actor=owner)
    for hooked in (project, other_project):  # a webhook named after its project: the routes' {name}
        Webhook.objects.create(project=hooked, name=hooked.name, url="http://127.0.0.1:9/", secret="s", created_by="x")
    ml_request = change_quota(other_project, "ondemand", _grant("64"), actor=other_user, reason="ml-secret").request
    django_user_model.objects.create_user("temp", "temp@example.com", "pw-temp-Secret!")
    ads_access = request_access(project, access="owner", duration_seconds=3600, reason="more", actor=viewer)
    ads_grant = grant_access(
        project, username="temp", access="viewer", duration_seconds=3600, reason="audit", actor=owner
    )
    ml_access = request_access(
        other_project, access="sidecar-exec", duration_seconds=3600, reason="ml-secret", actor=other_user
    )
    ml_grant = grant_access(
        other_project, username="temp", access="viewer", duration_seconds=3600, reason="ml-secret", actor=other_user
    )
    return {
        "access_request": {"ads": ads_access.pk, "ml": ml_access.pk},
        "access_grant": {"ads": ads_grant.pk, "ml": ml_grant.pk},
        "users": {
            "viewer": viewer, "developer": developer, "owner": owner, "admin": admin_user,
            "outsider": other_user, "removed": removed,
        },
        "ads_request": ads_request.pk,
        "ml_request": ml_request.pk,
        "audit": AuditEvent.objects.order_by("pk").first().pk,
    }  # fmt: skip


def deleted(project: Any, name: str) -> None:
    from workloads.history.models import HistoryEntry, WorkloadRecord

    record = WorkloadRecord.objects.create(
        project=project, uid=f"uid-{name}", kind="PinApp", name=name, namespace=project.namespace,
        manifest={"spec": {"replicas": 1}}, deleted_at=timezone.now(),
    )  # fmt: skip
    HistoryEntry.objects.create(record=record, key="deleted", at=timezone.now(), category="state", source="host")


def _grant(cpu: str) -> Any:
    from projects.grants import QuotaInput

    return QuotaInput(cpu=cpu, memory="256Gi", gpu="0", pods="100")


def bearer(token: str | None) -> APIClient:
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def url_of(operation: str, world: dict[str, Any], token_id: int, *, tenant: str = "ads") -> tuple[str, str]:
    method, path = operation.split(" ", 1)
    request = world["ads_request"] if tenant == "ads" else world["ml_request"]
    workload = "web" if tenant == "ads" else "secret-train"
    values = {"project": tenant, "cluster": "member-a", "pod": "web-local-1a-abc", "tier": "ondemand"}
    values["robot"] = "deploy-bot"
    if "/clusters/" in path:
        values |= {"name": "member-a", "kind": "ondemand", "verb": "cordon"}
    elif "/members/" in path:
        values |= {"name": tenant, "kind": "user", "member": "vic"}
    elif "/workloads/" in path:
        values |= {"kind": "PinApp", "name": workload}
    elif "/secrets/" in path or "/configmaps/" in path:
        values |= {"name": ("db" if "/secrets/" in path else "settings") if tenant == "ads" else "ml-secret-db"}
    elif "/debug/" in path:
        values |= {"name": DEBUGGER}
    else:
        values |= {"name": tenant}
    values |= {"request_id": world["access_request"][tenant], "grant_id": world["access_grant"][tenant]}
    if "/tokens/" in path:
        values["id"] = token_id
    elif "/audit/" in path:
        values["id"] = world["audit"]
    else:
        values["id"] = request
    if path == "/api/v1/search/":  # its query is required
        return method, f"{path}?q={workload}"
    return method, path.format(**values)


def call(client: APIClient, operation: str, world: dict[str, Any], token_id: int, **kw: Any) -> Any:
    method, url = url_of(operation, world, token_id, **kw)
    return getattr(client, method.lower())(url, BODIES.get(operation), format="json")


def state(fake_host: Any) -> tuple[Any, ...]:
    """What a refusal must leave as it was: the audit log, the host's objects, tokens, memberships, quota."""
    from projects.models import AccessGrant, AccessRequest, Membership, Project, QuotaRequest

    return (
        AuditEvent.objects.count(),
        repr(sorted(fake_host.objects.items())),
        list(ApiToken.objects.values_list("pk", "revoked_at")),
        list(Membership.objects.values_list("pk", "role")),
        list(Project.objects.values_list("pk", "generation", "state", "description", "policy", "oncall", "links")),
        list(QuotaRequest.objects.values_list("pk", "state")),
        list(AccessRequest.objects.values_list("pk", "state")),
        list(AccessGrant.objects.values_list("pk", "ends_at")),
        list(Webhook.objects.values_list("pk", "enabled", "events", "url")),
    )


def error_only(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    return body


@pytest.mark.parametrize("operation", sorted(MATRIX))
def test_refusals_by_role_change_nothing(operation, world, web):
    tokens = {role: create_api_token(user=user, name="matrix", days=1) for role, user in world["users"].items()}
    expired_token, expired = create_api_token(user=world["users"]["developer"], name="expired", days=1)
    ApiToken.objects.filter(pk=expired_token.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    revoked_token, revoked = create_api_token(user=world["users"]["developer"], name="revoked", days=1)
    revoke_api_token(user=world["users"]["developer"], token_id=revoked_token.pk)
    refused = REFUSED[MATRIX[operation]]
    before = state(web)

    for credential in (None, "pct_not_a_token", expired, revoked):
        error_only(call(bearer(credential), operation, world, tokens["developer"][0].pk), 401)
    for role in ("outsider", "removed", *MEMBERS):
        expected = refused.get("outsider" if role == "removed" else role)
        if expected is None:
            continue
        token, raw = tokens[role]
        error_only(call(bearer(raw), operation, world, token.pk), expected)

    assert state(web) == before
    if operation.startswith("GET "):  # what may be read is read, by every role the matrix allows
        for role in (*MEMBERS, "admin"):
            if refused.get(role) is None:
                token, raw = tokens[role]
                assert call(bearer(raw), operation, world, token.pk).status_code == 200, (role, operation)


@pytest.mark.parametrize("operation", sorted(op for op, who in MATRIX.items() if who != ANYONE and "{" in op))
def test_another_tenants_objects_are_404_with_none_of_their_data(operation, world, web):
    token, raw = create_api_token(user=world["users"]["developer"], name="matrix", days=1)
    before = state(web)

    response = call(bearer(raw), operation, world, token.pk, tenant="ml")

    if MATRIX[operation] == ADMIN:  # not a project's object: the role is refused whoever's
        error_only(response, 403)
    else:
        body = error_only(response, 404)
        text = str(body)
        assert "secret-train" not in text and "ml-secret" not in text and "proj-ml" not in text
    assert state(web) == before


# Bodies no operation takes: not JSON, the wrong shape, a field of no body, nested past the limit.
MALFORMED = {
    "not JSON": "{not json",
    "wrong shape": "[1, 2, 3]",
    "unknown fields": '{"no-such-field": 1, "cpu": [], "spec": "x", "replicas": "many", "role": {}}',
    "nested too deep": "[" * 10_000 + "]" * 10_000,
}


@pytest.mark.parametrize("operation", sorted(op for op, who in MATRIX.items() if not op.startswith("GET ")))
def test_a_refused_caller_is_refused_before_the_body_is_read(operation, world, web):
    """Authorization first: whoever may not call the operation gets the same refusal whatever the body holds."""
    tokens = {role: create_api_token(user=user, name="matrix", days=1) for role, user in world["users"].items()}
    refused = REFUSED[MATRIX[operation]]
    before = state(web)

    for role in ("outsider", *MEMBERS):
        expected = refused.get(role)
        if expected is None:
            continue
        token, raw = tokens[role]
        method, url = url_of(operation, world, token.pk)
        for label, body in MALFORMED.items():
            response = getattr(bearer(raw), method.lower())(url, body, content_type="application/json")
            assert response.status_code == expected, (role, label, response.status_code, response.content[:200])
            error_only(response, expected)

    assert state(web) == before
