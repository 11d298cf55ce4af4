"""The portal's websockets for ``pincompute logs -f`` and ``exec -it``: the browser's protocol
(``debugging.shell.consumer``, ``debugging.logs.consumer`` and ``static/src/js/{logstream,terminal}.js``), authenticated
with the API token on the handshake.

Server -> client: ``{"type":"status","state":"connected|closed|error","message":...}``; logs send
``{"type":"lines","lines":[{"seq","pod","container","ts","text"}]}``, the shell ``{"type":"stdout","data":...}``.
Client -> server: ``{"type":"stdin","data":...}`` and ``{"type":"resize","cols":C,"rows":R}`` (shell),
``{"type":"resume","after_seq":N}`` (logs). A refusal is a status ``error`` then close 4401 / 4403 / 4404 (4400
a bad log option, 4429 too many open streams); a failure is a status ``error`` then close 4502 (the member's
apiserver could not be reached, broke or stopped answering: the shell could not start or was cut, the log could not
be followed), raised as ``ServerError`` (the CLI's exit code 5, never 0); the end of a stream is status
``closed`` then close 1000. Log options are the URL's query (``log_url``).

The shell is the pod's TTY shell (no command in the protocol): a command is typed into it after a marker byte
(everything before it, the prompt and the echo of the typed line, is not shown); see ``shell_line``.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import re
import shlex
import struct
import threading
from collections.abc import Callable
from typing import Any, BinaryIO
from urllib.parse import urlencode

import websocket

from pinconsole_sdk.errors import (
    ApiError,
    ConnectionFailed,
    Forbidden,
    InvalidError,
    NotFound,
    RateLimited,
    ServerError,
    Unauthenticated,
)

MARKER = "\x1e"
EOF_CHAR = "\x04"
CLOSE_ERRORS: dict[int, type[ApiError]] = {
    4400: InvalidError,  # a log option out of range
    4401: Unauthenticated,
    4403: Forbidden,
    4404: NotFound,
    4429: RateLimited,  # over the per-user number of open streams
}
_EXIT = re.compile(r"\(exit (\d+)\)")


class Closed(Exception):
    """The socket closed: ``code`` (1000 normal, 1006 dropped) and the last status message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class Stream:
    """One websocket of the portal: JSON messages in, JSON messages out."""

    def __init__(self, url: str, authorization: str, origin: str, timeout: float = 30.0) -> None:
        try:
            self.ws = websocket.create_connection(
                url, timeout=timeout, header=[f"Authorization: {authorization}"], origin=origin.rstrip("/")
            )
        except websocket.WebSocketBadStatusException as exc:
            status = int(getattr(exc, "status_code", 0) or 0)
            kind = {401: Unauthenticated, 403: Forbidden, 404: NotFound}.get(status, ServerError)
            raise kind(f"the websocket handshake was refused ({status})", status=status or None) from None
        except (OSError, websocket.WebSocketException) as exc:
            raise ConnectionFailed(f"cannot open {url}: {exc}") from None
        self.message = ""
        self.exit_code: int | None = None
        self.ended = False  # the server said the session is over (status "closed")

    def send(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError, websocket.WebSocketException):  # the reader sees the close
            self.ws.send(json.dumps(message))

    def receive(self, timeout: float | None) -> dict[str, Any] | None:
        """The next message (None after ``timeout`` seconds of silence); raises Closed or the refusal's error."""
        self.ws.settimeout(timeout)
        try:
            opcode, frame = self.ws.recv_data_frame(True)
        except websocket.WebSocketTimeoutException:
            return None
        except (OSError, websocket.WebSocketException):
            raise Closed(1006, self.message or "the connection dropped") from None
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            code = struct.unpack("!H", frame.data[:2])[0] if len(frame.data) >= 2 else 1005
            if code in CLOSE_ERRORS:
                raise CLOSE_ERRORS[code](self.message or f"refused ({code})", status=code - 4000, code=str(code))
            if code >= 4500:
                raise ServerError(self.message or f"failed ({code})", status=code - 4000, code=str(code))
            raise Closed(code, self.message)
        if opcode != websocket.ABNF.OPCODE_TEXT:
            return {}
        message = json.loads(frame.data.decode("utf-8"))
        if isinstance(message, dict) and message.get("type") == "status":
            self.message = str(message.get("message") or "")
            self.ended = self.ended or message.get("state") == "closed"
            found = _EXIT.search(self.message)
            if found:
                self.exit_code = int(found.group(1))
        return message if isinstance(message, dict) else {}

    def close(self) -> None:
        with contextlib.suppress(OSError, websocket.WebSocketException):
            self.ws.close()


def log_url(
    url: str,
    *,
    follow: bool,
    tail: int | None = None,
    since: str | None = None,
    timestamps: bool = False,
    previous: bool = False,
    file: str | None = None,
) -> str:
    """The log stream's URL with the consumer's options (``debugging.logs.options``): ``follow=0`` has the server
    send what is there and close; ``tail``, ``since`` (``30s``, ``10m``...), ``timestamps`` and ``previous`` as
    kubectl's; ``file`` a file inside the container (one its kind declares, else one a shell could read)."""
    options = {
        "follow": None if follow else "0",
        "tail": None if tail is None else str(tail),
        "since": since,
        "timestamps": "1" if timestamps else None,
        "previous": "1" if previous else None,
        "file": file,
    }
    query = urlencode({k: v for k, v in options.items() if v is not None})
    return f"{url}{'&' if '?' in url else '?'}{query}" if query else url


def follow_lines(stream: Stream, on_line: Callable[[dict[str, Any]], None], *, connect_timeout: float = 30.0) -> None:
    """Each line message (``{"seq","cluster","pod","container","ts","text"}``) to ``on_line`` until the server ends
    the stream (at once after the backlog for ``follow=0``)."""
    connected = False
    try:
        while True:
            message = stream.receive(None if connected else connect_timeout)
            if message is None:
                raise ConnectionFailed("the log stream did not start")
            if message.get("type") == "status" and message.get("state") == "connected":
                connected = True
            for line in message.get("lines") or [] if message.get("type") == "lines" else []:
                on_line(line)
    except Closed:
        return


END = "\x1epincompute-exit="  # then the status and MARKER: the command is over, all its output has come


def shell_line(command: list[str] | None, *, quiet_tty: bool, stdin: bool = False) -> str | None:
    """What to type into the pod's shell: none (attach as is), or the command after the marker.

    On a terminal (``quiet_tty`` False) the shell is replaced by the command (``exec``). Without one, echo and
    CR-LF translation are turned off, the command reads stdin only with ``stdin`` (else /dev/null, as kubectl
    without -i), and after it the shell prints ``END``, its status and the marker, then waits for a line before
    exiting with that status: a runtime may drop what a process wrote just before its TTY closed (kwok's does),
    so the end of the output is known from the stream itself, never from the session's end."""
    if not command and not quiet_tty:
        return None
    if not quiet_tty:
        return f"printf '\\036'; exec {shlex.join(command or ['sh'])}\n"
    run = shlex.join(command or ["sh"]) + ("" if stdin else " </dev/null")
    end = END.replace("\x1e", "\\036")
    return (
        f"stty -echo -onlcr 2>/dev/null; printf '\\036'; {run}; s=$?; printf '{end}%d\\036' \"$s\"; "
        'read -r _; exit "$s"\n'
    )


class Shell:
    """A pod shell: output to ``write``, input from ``read`` (bytes; b"" at EOF) in a thread. ``run`` returns the
    command's exit status: the one after ``END`` when the shell line prints it, else the session's."""

    def __init__(self, stream: Stream, write: Callable[[str], None]) -> None:
        self.stream, self.write = stream, write
        self.hiding = False
        self._input: threading.Thread | None = None
        self._input_started = False
        self._pending = ""  # output held back: it may be the start of END
        self.status: int | None = None  # from END

    def start(self, line: str | None, connect_timeout: float = 30.0) -> None:
        while True:  # the status "connected", or the refusal
            message = self.stream.receive(connect_timeout)
            if message is None:
                raise ConnectionFailed("the shell did not start")
            if message.get("type") == "status" and message.get("state") == "connected":
                break
        if line is not None:
            self.hiding = True
            self.stream.send({"type": "stdin", "data": line})

    def resize(self, cols: int, rows: int) -> None:
        self.stream.send({"type": "resize", "cols": cols, "rows": rows})

    def pump_stdin(self, read: Callable[[], bytes], *, eof: bool) -> threading.Thread:
        """Forward stdin; at its end (``eof``: piped input) send ^D, twice after a partial line."""

        def run() -> None:
            decoder, last = codecs.getincrementaldecoder("utf-8")("replace"), "\n"
            while True:
                chunk = read()
                text = decoder.decode(chunk, final=not chunk)
                if text:
                    self.stream.send({"type": "stdin", "data": text})
                    last = text[-1]
                if not chunk:
                    if eof:
                        self.stream.send({"type": "stdin", "data": EOF_CHAR if last == "\n" else EOF_CHAR * 2})
                    return

        self._input = threading.Thread(target=run, name="pincompute-stdin", daemon=True)
        if not self.hiding:  # else once the marker has come (typed-ahead input would be echoed)
            self._start_input()
        return self._input

    def _start_input(self) -> None:
        if self._input is not None and not self._input_started:
            self._input_started = True
            self._input.start()

    def _output(self, data: str) -> bool:
        """Write the command's output up to ``END``; True once ``END`` and the status have come."""
        data = self._pending + data
        at = data.find(END)
        if at >= 0:
            status, found, _ = data[at + len(END) :].partition(MARKER)
            if not found:
                self.write(data[:at])
                self._pending = data[at:]
                return False
            self.write(data[:at])
            self._pending = ""
            self.status = int(status) if status.isdigit() else 0
            return True
        keep = next((n for n in range(min(len(END) - 1, len(data)), 0, -1) if END.startswith(data[-n:])), 0)
        self.write(data[: len(data) - keep])
        self._pending = data[len(data) - keep :]
        return False

    def run(self, linger: float = 5.0) -> int:
        """Relay output until the command is over (``END``) or the shell ends; the exit status."""
        while True:
            try:
                message = self.stream.receive(None if self.status is None else linger)
            except Closed as closed:
                if self.status is not None or self.stream.ended:
                    return self.status if self.status is not None else self.stream.exit_code or 0
                if closed.code not in (1000, 1005):
                    raise ConnectionFailed(f"the shell's connection dropped ({closed.code})") from None
                return self.stream.exit_code or 0
            if message is None:  # END came, the session did not end within ``linger``: ours is done anyway
                return self.status or 0
            if message.get("type") != "stdout" or self.status is not None:
                continue
            data = str(message.get("data", ""))
            if self.hiding:
                _, found, data = data.partition(MARKER)
                if not found:
                    continue
                self.hiding = False
                self._start_input()
            if data and self._output(data):
                self.stream.send({"type": "stdin", "data": "\n"})  # the shell's read: it exits with the status


def read_chunks(stream: BinaryIO) -> Callable[[], bytes]:
    """A reader of raw chunks as they come (os.read on a real file: a keystroke is not held back)."""
    try:
        fd: int | None = stream.fileno()
    except (OSError, ValueError, AttributeError):
        fd = None

    def read() -> bytes:
        if fd is not None:
            try:
                return os.read(fd, 4096)
            except OSError:
                return b""
        return stream.read(4096) or b""

    return read
