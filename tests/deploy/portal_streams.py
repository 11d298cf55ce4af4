"""The portal's websockets as a client outside the cluster uses them through the web Service: a shell, and a log
stream followed across the web pods' rollout (it is cut when its pod goes, and a new connection resumes after the
last line seen, as the browser's widget does)."""

from __future__ import annotations

import json
import threading
from typing import Any

from websockets.exceptions import ConnectionClosed, WebSocketException
from websockets.sync.client import ClientConnection, connect

from tests.deploy.realnode_release import PORTAL_HOST


def _open(url: str, path: str, token: str) -> ClientConnection:
    headers = {"Host": PORTAL_HOST, "Origin": f"https://{PORTAL_HOST}", "Authorization": f"Bearer {token}"}
    return connect(url.replace("http://", "ws://") + path, additional_headers=headers, open_timeout=60)


def shell_echo(url: str, path: str, token: str) -> str:
    """Type a command in a shell over the websocket; what it printed."""
    seen = ""
    with _open(url, path, token) as ws:
        status = json.loads(ws.recv(timeout=60))
        assert status["state"] == "connected", status  # else the message says why
        ws.send(json.dumps({"type": "stdin", "data": "echo hello-$((6*7))\r"}))
        while "hello-42" not in seen:
            message = json.loads(ws.recv(timeout=60))
            if message["type"] == "stdout":
                seen += message["data"]
    return seen


class LogFollow:
    """A log stream read in a thread until the server ends it; ``lines`` as they came, ``closed`` once cut."""

    def __init__(self, url: str, path: str, token: str, after_seq: int | None = None) -> None:
        self.lines: list[dict[str, Any]] = []
        self.opened, self.closed = threading.Event(), threading.Event()
        self.ws: ClientConnection | None = None
        self.error: BaseException | None = None
        self.ended = ""  # why the server ended it: its last status message and the close frame
        threading.Thread(target=self._read, args=(url, path, token, after_seq), daemon=True).start()
        assert self.opened.wait(90), "the log stream did not open"
        assert self.error is None, f"the log stream failed to open: {self.error!r}"

    def _read(self, url: str, path: str, token: str, after_seq: int | None) -> None:
        try:
            with _open(url, path, token) as self.ws:
                if after_seq is not None:
                    self.ws.send(json.dumps({"type": "resume", "after_seq": after_seq}))
                self.opened.set()
                for raw in self.ws:
                    message = json.loads(raw)
                    if message.get("type") == "lines":
                        self.lines += message["lines"]
                    elif message.get("type") == "status":
                        self.ended = f"{message.get('state')}: {message.get('message')}"
        except ConnectionClosed as closed:
            frame = closed.rcvd
            self.ended += f" (closed {frame.code}: {frame.reason})" if frame else " (closed without a frame)"
        except (OSError, WebSocketException) as exc:  # refused, timed out or turned down at the handshake
            self.error = exc
        finally:
            self.opened.set()
            self.closed.set()

    @property
    def last_seq(self) -> int:
        return int(self.lines[-1]["seq"])

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        self.closed.wait(10)
