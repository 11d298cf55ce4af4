"""A bad log option (an include pattern RE2 refuses, ``since=abc``, ``tail=-5``) on the log pages is the page again,
400, with the option named beside the form and no stream started; with DEBUG on (``manage.py dev``) as without it
(the refusal used to reach Django's debug page). The websockets close 4400 naming the option."""

from __future__ import annotations

import html
from urllib.parse import quote

import pytest
from channels.db import database_sync_to_async

from tests.support.debugging import member, refused_with, ws_headers

BAD = [
    ("include", "([unclosed", "is not a pattern RE2 accepts"),
    ("since", "abc", "give seconds (or 30s, 10m, 2h, 1d)"),
    ("tail", "-5", "give a number of lines from 0 to 10000"),
]
PAGES = ["/debug/member-x/proj-ads/web-1/", "/debug/workload/proj-ads/web/logs/"]


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False], ids=["debug", "production"])
@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize(("name", "value", "said"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_log_option_is_an_inline_error_naming_it(
    fake_member, project, user, client, settings, debug, page, name, value, said
):
    settings.DEBUG = debug
    member(project, user, "viewer")
    client.force_login(user)
    client.raise_request_exception = False

    response = client.get(page, {name: value, "container": "app"})

    body = html.unescape(response.content.decode())
    assert response.status_code == 400 and response["Content-Type"].startswith("text/html")
    assert (
        f'<li data-log-error="{name}"><label for="log-{name}" class="fw-semibold">{name.capitalize()}</label>' in body
    )
    assert said in body and f"{name}={value!r}" in body
    assert f'name="{name}" id="log-{name}"' in body and f'value="{value}"' in body  # the form keeps what was typed
    assert "data-logstream" not in body and "Traceback" not in body


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_every_bad_option_is_named_at_once(fake_member, project, user, client, page):
    member(project, user, "viewer")
    client.force_login(user)

    response = client.get(page, {"include": "([unclosed", "since": "abc", "tail": "-5"})

    body = response.content.decode()
    assert response.status_code == 400
    assert all(f'data-log-error="{name}"' in body for name in ("include", "since", "tail"))
    assert body.count(" is-invalid") == 3


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_thread_connections")
@pytest.mark.parametrize(
    "path",
    ["/ws/logs/member-x/proj-ads/web-1/app/?", "/ws/workload-logs/proj-ads/web/?"],
)
@pytest.mark.parametrize(("name", "value", "said"), BAD, ids=[b[0] for b in BAD])
async def test_the_websockets_close_4400_naming_the_option(fake_member, project, user, path, name, value, said):
    await database_sync_to_async(member)(project, user, "viewer")

    status, code = await refused_with(f"{path}{name}={quote(value)}", await database_sync_to_async(ws_headers)(user))

    assert code == 4400 and f"{name}=" in status["message"] and said in status["message"]
