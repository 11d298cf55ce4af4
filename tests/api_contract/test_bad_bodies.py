"""Bad bodies on every write operation of ``/api/schema/`` (a new write is covered by being in the schema), sent to
the real portal served over ASGI by uvicorn (``asgi_portal``: the body limit's ASGI half runs too) as a platform
admin, whom no operation refuses, so every body reaches the gate and the parsers.

Each answer: no 5xx, the status the case calls for and the schema documents for the operation, the one JSON error
body, never larger than what was sent (or than a small error body), in under the client's (generous) timeout; and
nothing written: the audit log, the host's objects and the rows a write could change are as they were. Operations
that take no body (DELETE, archive) get the cases the gate refuses before any view (size, content coding): the
others' bodies they ignore.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accounts.models import ApiToken
from accounts.services import create_api_token
from base.models import AuditEvent
from tests.support.sdk import asgi_portal  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

WRITES = ("post", "put", "patch", "delete")
LIMIT = 512 * 1024  # REQUEST_BODY_MAX_BYTES' default
SMALL_ANSWER = 2048  # an error body's own size: a bad body of a few bytes gets at most this much
TIMEOUT = 30.0  # the client's; an answer takes well under a second


@pytest.fixture
def unthrottled(settings):
    """Every case is a write of one user: the per-user write rate would cut the run short."""
    rest = dict(settings.REST_FRAMEWORK)
    rest["DEFAULT_THROTTLE_RATES"] = {name: "100000/min" for name in rest["DEFAULT_THROTTLE_RATES"]}
    settings.REST_FRAMEWORK = rest


@pytest.fixture
def world(web, project, owner, viewer, other_user, admin_user) -> dict[str, Any]:
    from projects.access_requests.services import grant_access, request_access
    from projects.grants import QuotaInput
    from projects.quota import change_quota

    request = change_quota(project, "ondemand", QuotaInput("64", "256Gi", "0", "100"), actor=owner, reason="more")
    token, raw = create_api_token(user=admin_user, name="bad-bodies", days=1)
    asked = request_access(project, access="owner", duration_seconds=3600, reason="more", actor=viewer)
    granted = grant_access(
        project, username=other_user.username, access="viewer", duration_seconds=3600, reason="r", actor=owner
    )
    return {
        "request": request.request.pk, "token": token.pk, "raw": raw, "access_request": asked.pk, "grant": granted.pk,
    }  # fmt: skip


def write_operations(client: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
    document = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path, item in sorted(document["paths"].items()):
        for method, operation in item.items():
            if method in WRITES:
                yield method.upper(), path, operation


def url_of(path: str, world: dict[str, Any]) -> str:
    values = {"project": "ads", "tier": "ondemand", "id": world["request"], "name": "ads"}
    values |= {"cluster": "member-a", "pod": "web-local-1a-abc", "robot": "deploy-bot"}
    values |= {"request_id": world["access_request"], "grant_id": world["grant"]}
    if "/clusters/" in path:
        values |= {"name": "member-a", "kind": "ondemand", "verb": "cordon"}
    elif "/members/" in path:
        values |= {"kind": "user", "member": "vic"}
    elif "/workloads/" in path:
        values |= {"kind": "PinApp", "name": "web"}
    if "/tokens/" in path:
        values["id"] = world["token"]
    return path.format(**values)


def nested(media_type: str, depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()  # a YAML flow sequence too


def many_keys(media_type: str) -> bytes:
    """Unknown keys (and, in a workload document, unknown fields) as many as fit well under the limit."""
    keys = range(30_000)
    if "yaml" in media_type:
        return "".join(f"k{i:05d}: 0\n" for i in keys).encode()
    return ("{" + ",".join(f'"k{i:05d}":0' for i in keys) + "}").encode()


# (case, body, headers, status) for an operation reading ``media_type``
def parse_cases(media_type: str) -> list[tuple[str, bytes, dict[str, str], int]]:
    typed = {"Content-Type": media_type}
    return [
        ("nested 10,000 deep", nested(media_type, 10_000), typed, 400),
        ("nested 41 deep", nested(media_type, 41), typed, 400),
        ("many unknown keys", many_keys(media_type), typed, 400),
        ("invalid UTF-8", b'{"name": "\xff\xfe"}', typed, 400),
        ("UTF-16 with a BOM", '{"name": "x"}'.encode("utf-16"), typed, 400),
        (
            "UTF-16 declared",
            '{"name": "x"}'.encode("utf-16-le"),
            {"Content-Type": f"{media_type}; charset=utf-16"},
            400,
        ),
        ("a type it does not read", b'{"name": "x"}', {"Content-Type": "text/plain"}, 415),
    ]


def gate_cases() -> list[tuple[str, Any, dict[str, str], int]]:
    json_type = {"Content-Type": "application/json"}
    over = b'{"k": "' + b"x" * LIMIT + b'"}'
    return [
        ("over the limit", over, json_type, 413),
        ("20 MB", b"[" * (20 * 2**20), json_type, 413),
        ("over the limit, chunked", iter([over[:100_000]] * 8), json_type, 413),
        ("gzip", gzip.compress(b'{"name": "x"}'), {**json_type, "Content-Encoding": "gzip"}, 415),
    ]


def state(fake_host: Any) -> tuple[Any, ...]:
    """Everything a write of the API could change: the audit log, the host's objects and every row of the models
    the writes touch."""
    from clusters.models import Cluster, ClusterPool
    from projects.models import AccessGrant, AccessRequest, Membership, Project, QuotaRequest, TierQuota
    from usage.models import Price

    models = (AccessGrant, AccessRequest, Cluster, ClusterPool, Membership, Price, Project, QuotaRequest, TierQuota)
    rows = [list(model.objects.order_by("pk").values()) for model in models]
    tokens = list(ApiToken.objects.values_list("pk", "name", "scope", "expires_at", "revoked_at"))  # not last used
    return AuditEvent.objects.count(), repr(sorted(fake_host.objects.items())), repr(rows), tokens


def sent_size(body: Any) -> int:
    return len(body) if isinstance(body, bytes) else 8 * 100_000


def test_every_write_refuses_bad_bodies_and_writes_nothing(web, world, asgi_portal, unthrottled, client):  # noqa: F811
    operations = list(write_operations(client))
    assert len(operations) >= 20, "the schema lists the writes"
    before = state(web)
    wrong: list[str] = []

    with httpx.Client(base_url=asgi_portal.url, timeout=TIMEOUT) as http:
        for method, path, operation in operations:
            media_types = list(operation.get("requestBody", {}).get("content", {}))
            cases = [case for media_type in media_types for case in parse_cases(media_type)] + gate_cases()
            for case, body, headers, expected in cases:
                response = http.request(
                    method,
                    url_of(path, world),
                    content=body,
                    headers={**headers, "Authorization": f"Bearer {world['raw']}"},
                )
                problem = judged(response, expected, operation, sent_size(body))
                if problem:
                    wrong.append(f"{method} {path} [{case} as {headers['Content-Type']}]: {problem}")

    assert not wrong, "\n".join(wrong)
    assert state(web) == before


def judged(response: httpx.Response, expected: int, operation: dict[str, Any], sent: int) -> str | None:
    """What is wrong with the answer to a bad body, or None."""
    if response.status_code != expected:
        return f"{response.status_code} (expected {expected}): {response.content[:200]!r}"
    if str(expected) not in operation["responses"]:
        return f"{expected} is not documented"
    try:
        body = response.json()
    except ValueError:
        return f"not JSON: {response.content[:200]!r}"
    if set(body) != {"error"} or body["error"]["status"] != expected or len(body["error"]["fields"]) > 20:
        return f"not the error body: {response.content[:300]!r}"
    if len(response.content) > max(sent, SMALL_ANSWER):
        return f"an answer of {len(response.content)} bytes to {sent} sent"
    return None
