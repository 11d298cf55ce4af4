"""Hostile values on the debug pages and the log websockets: a ``tail`` or ``since`` of digits ``int`` refuses or
that are not ASCII (``²``, ``٤``, 5,000 digits) is a 400 / 4400 naming the option; a NUL byte in a cluster or
namespace name (which PostgreSQL refuses in a query) is a 404 / 4404, as a made-up name is; never a 500."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from channels.db import database_sync_to_async

from base.errors import Invalid, NotFound
from debugging.authz import resolve_namespace, resolve_pod, resolve_selector
from debugging.logs.options import parse_log_options
from tests.support.debugging import member, refused_with, ws_headers

NINES = "9" * 5000
HOSTILE_NUMBERS = ["²", "٤", NINES, "+5", "1_0", f"{NINES}s", "²m", "٤h"]


def short(value: str) -> str:
    return repr(value) if len(value) < 30 else f"{value[:8]}...({len(value)} chars)"


@pytest.mark.parametrize("name", ["tail", "since"])
@pytest.mark.parametrize("value", HOSTILE_NUMBERS, ids=short)
def test_a_number_int_refuses_or_not_in_ascii_digits_is_invalid_naming_the_option(name, value):
    with pytest.raises(Invalid) as refused:
        parse_log_options(f"{name}={quote(value)}")

    assert refused.value.close_code == 4400 and f"{name}=" in refused.value.message
    assert [f.path for f in refused.value.fields] == [name] and len(refused.value.message) < 300


def test_plain_numbers_still_parse():
    assert parse_log_options("tail=0").tail == 0 and parse_log_options("tail=%2010%20").tail == 10
    assert parse_log_options("tail=00042").tail == 42 and parse_log_options("since=90").since_seconds == 90


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["²", NINES], ids=short)
@pytest.mark.parametrize(
    ("page", "status"),
    [
        ("/debug/member-x/proj-ads/web-1/", 400),  # as for tail=lots: the 400 page (base.middleware)
        ("/debug/workload/proj-ads/web/logs/", 400),
        ("/debug/member-x/proj-ads/logs/", 200),  # the selector's page reads no log option: ignored
    ],
)
def test_the_pages_answer_a_hostile_tail_with_a_400(fake_member, project, user, client, page, status, value):
    member(project, user, "viewer")
    client.force_login(user)
    client.raise_request_exception = False

    response = client.get(page, {"tail": value, "selector": "pincompute.io/workload=web"})

    assert response.status_code == status


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.parametrize("value", ["²", NINES], ids=short)
@pytest.mark.parametrize(
    "path",
    [
        "/ws/logs/member-x/proj-ads/web-1/app/?tail=",
        "/ws/logs/member-x/proj-ads/?selector=pincompute.io/workload=web&tail=",
        "/ws/workload-logs/proj-ads/web/?tail=",
    ],
)
async def test_the_log_websockets_close_a_hostile_tail_with_4400(fake_member, project, user, path, value):
    await database_sync_to_async(member)(project, user, "viewer")

    status, code = await refused_with(path + quote(value), await database_sync_to_async(ws_headers)(user))

    assert code == 4400 and "tail=" in status["message"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/debug/member-x/proj-a%00b/web-1/",
        "/debug/member-x/proj-a%00b/web-1/shell/",
        "/debug/member-x/proj-a%00b/logs/?selector=a=b",
        "/debug/workload/proj-a%00b/web/logs/",
        "/debug/member-x%00/proj-ads/web-1/",
        "/debug/member-x%00/proj-ads/logs/?selector=a=b",
        "/debug/member-x/proj-ads%00/web-1/",
    ],
)
def test_a_nul_in_a_debug_page_path_is_a_404_as_a_made_up_name_is(fake_member, project, user, client, path):
    member(project, user, "owner")
    client.force_login(user)
    client.raise_request_exception = False

    response = client.get(path)

    assert response.status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cluster", "namespace"),
    [("member-x", "proj-a\x00b"), ("member-x\x00", "proj-ads"), ("member-x", "proj-ads\x00"), ("member-x", "proj-")],
)
def test_the_resolvers_the_websockets_share_report_a_nul_as_missing(fake_member, project, user, cluster, namespace):
    member(project, user, "owner")

    for resolve in (
        lambda: resolve_pod(user, cluster, namespace, "web-1"),
        lambda: resolve_selector(user, cluster, namespace, "a=b"),
        lambda: resolve_namespace(user, namespace) if cluster == "member-x" else resolve_pod(user, cluster, "", ""),
    ):
        with pytest.raises(NotFound):
            resolve()
