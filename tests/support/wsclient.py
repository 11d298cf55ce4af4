"""channels' WebsocketCommunicator without `channels.testing/__init__`, which imports daphne (not installed:
the project serves ASGI with uvicorn). The package is registered without running its __init__, so only
the communicator modules (no daphne dependency) are loaded."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import channels

if "channels.testing" not in sys.modules:
    _pkg = types.ModuleType("channels.testing")
    _pkg.__path__ = [str(Path(channels.__file__).parent / "testing")]
    sys.modules["channels.testing"] = _pkg

from asgiref.testing import ApplicationCommunicator
from channels.testing.websocket import WebsocketCommunicator as ChannelsCommunicator


class WebsocketCommunicator(ChannelsCommunicator):
    """Channels' communicator, with Channels' closing of database connections left on. Channels turns
    ``channels.db.close_old_connections`` into a no-op while its communicator waits, for consumers whose sync code
    runs on the test's own thread; the portal's consumers run theirs on the websockets' threads
    (``console.syncthreads``), so each call gives its connection back to the pool (``console.settings``), as in
    production, instead of every such thread keeping one lent for the whole session."""

    send_input = ApplicationCommunicator.send_input
    receive_output = ApplicationCommunicator.receive_output


__all__ = ["WebsocketCommunicator"]
