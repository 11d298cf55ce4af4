"""The bell's count over the websocket: sent at connect, again when a notification for this user commits or is read,
never for another user's."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from notifications.models import Event
from notifications.services import mark_all_read, notify
from tests.support.debugging import ws_headers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_thread_connections")]

BELL = "/ws/notifications/"


async def connect(user):
    from console.asgi import application
    from tests.support.wsclient import WebsocketCommunicator

    comm = WebsocketCommunicator(application, BELL, headers=await database_sync_to_async(ws_headers)(user))
    connected, _ = await comm.connect(timeout=30)
    assert connected
    return comm


@database_sync_to_async
def tell(user, text: str) -> None:
    notify(Event.QUOTA_DECIDED, recipients=[user], text=text, key=f"test/{text}")


async def test_the_count_follows_new_and_read_notifications(user, other_user):
    comm = await connect(user)
    assert await comm.receive_json_from(timeout=30) == {"unread": 0}

    await tell(user, "first")
    assert await comm.receive_json_from(timeout=30) == {"unread": 1}
    await tell(other_user, "not yours")
    await tell(user, "second")
    assert await comm.receive_json_from(timeout=30) == {"unread": 2}  # nothing came for the other user's

    await database_sync_to_async(mark_all_read)(user=user)
    assert await comm.receive_json_from(timeout=30) == {"unread": 0}
    await comm.disconnect()


async def test_without_a_session_the_socket_is_refused_with_4401(db):
    from console.asgi import application
    from tests.support.wsclient import WebsocketCommunicator

    comm = WebsocketCommunicator(application, BELL, headers=await database_sync_to_async(ws_headers)(None))
    connected, code = await comm.connect(timeout=30)
    assert not connected and code == 4401
