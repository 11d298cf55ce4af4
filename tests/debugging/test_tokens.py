"""API tokens on the websocket handshake (the CLI's ``logs -f`` / ``exec -it``): ``Authorization: Bearer`` is
checked like the API's, then the consumers authorize and audit as for the browser's session."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.services import create_api_token, revoke_api_token
from base.models import AuditEvent
from tests.support.debugging import EXEC, HOST, LOGS, ORIGIN, member, refused_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]


def bearer(raw: str) -> list[tuple[bytes, bytes]]:
    return [(b"host", HOST), (b"origin", ORIGIN), (b"authorization", f"Bearer {raw}".encode())]


@database_sync_to_async
def token_of(user: Any, role: str, project: Any) -> tuple[Any, str]:
    member(project, user, role)
    return create_api_token(user=user, name="cli", days=7)


async def test_a_valid_token_is_authorized_like_a_session(fake_member, project, user):
    _, raw = await token_of(user, "viewer", project)

    status, code = await refused_with(EXEC, bearer(raw))

    assert code == 4403 and "Viewers" in status["message"]  # signed in as the viewer: not allowed a shell


async def test_a_token_opening_logs_is_audited_as_its_user(fake_member, project, user):
    _, raw = await token_of(user, "viewer", project)
    from console.asgi import application
    from tests.support.wsclient import WebsocketCommunicator

    comm = WebsocketCommunicator(application, LOGS, headers=bearer(raw))
    connected, _ = await comm.connect()
    assert connected
    for _ in range(20):
        event = await database_sync_to_async(lambda: AuditEvent.objects.filter(action="logs.open").first())()
        if event is not None:
            break
        await comm.receive_nothing(0.1)
    await comm.disconnect()

    assert event is not None and event.actor_id == user.pk and event.target_name == "proj-ads/web-1/app"


async def test_another_tenants_pod_is_4404_with_a_token(fake_member, project, other_project, user):
    _, raw = await token_of(user, "owner", project)

    _, code = await refused_with("/ws/exec/member-x/proj-ml/train-1/app/", bearer(raw))

    assert code == 4404


@pytest.mark.parametrize("raw", ["pct_forged0000000000000000000000", "not-a-token", ""])
async def test_a_forged_token_is_refused_with_4401(fake_member, project, user, raw):
    await token_of(user, "owner", project)

    status, code = await refused_with(EXEC, bearer(raw))

    assert code == 4401 and status["state"] == "error"


async def test_a_revoked_token_is_refused_with_4401_even_with_a_session(fake_member, project, user):
    token, raw = await token_of(user, "owner", project)
    await database_sync_to_async(revoke_api_token)(user=user, token_id=token.pk)
    from tests.support.debugging import ws_headers

    headers = [*await database_sync_to_async(ws_headers)(user), (b"authorization", f"Bearer {raw}".encode())]

    _, code = await refused_with(EXEC, headers)

    assert code == 4401


async def test_a_read_only_token_opens_no_shell(fake_member, project, user):
    await database_sync_to_async(member)(project, user, "developer")
    _, raw = await database_sync_to_async(create_api_token)(user=user, name="ro", days=1, scope="read")

    status, code = await refused_with(EXEC, bearer(raw))

    assert code == 4403 and "read-only" in status["message"]
