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

from channels.testing.websocket import WebsocketCommunicator

__all__ = ["WebsocketCommunicator"]
