"""Run one short command in a pod's container through the ``pods/exec`` subresource, blocking (the operator's
container restarts: ``kill -TERM 1``).

The apiserver's remotecommand websocket protocol (``v5.channel.k8s.io``, else ``v4``): each binary message is one
channel byte then the payload; channel 3 carries a ``v1.Status`` once the process ended. No stdin, no tty: the
command runs, its output is discarded, its exit status is read. The portal's interactive exec
(``debugging.kubeexec``) speaks the same protocol on the event loop and reads the exit status here.
"""

from __future__ import annotations

import functools
import json
import re
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from kubernetes import client as k8s
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.sync.client import connect

ERROR_CHANNEL = 3
SUBPROTOCOLS = ("v5.channel.k8s.io", "v4.channel.k8s.io")
OPEN_TIMEOUT, RUN_TIMEOUT = 10.0, 20.0


@dataclass(frozen=True)
class ExecResult:
    """How the command ended: ``exit_code`` when it ran (0 success), else ``None`` and ``said`` says why it could
    not run (the apiserver's refusal, a broken connection, a timeout)."""

    exit_code: int | None
    said: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def exit_code(status_json: bytes) -> int | None:
    """Exit status from the error channel's ``v1.Status``: 0 on Success, else details.causes[ExitCode]; some
    runtimes (kwok) only say "exit status N" in the message. ``None`` when it says nothing usable."""
    try:
        status = json.loads(status_json or b"null")
    except ValueError:
        return None
    if not isinstance(status, dict):
        return None
    if status.get("status") == "Success":
        return 0
    for cause in (status.get("details") or {}).get("causes") or []:
        if isinstance(cause, dict) and cause.get("reason") == "ExitCode" and str(cause.get("message", "")).isdigit():
            return int(cause["message"])
    found = re.search(r"exit (?:status|code) (\d+)", str(status.get("message", "")))
    return int(found.group(1)) if found else None


class _NamedServerContext(ssl.SSLContext):
    """Checks the server's certificate against one name whatever address is dialled: a kubeconfig's
    ``tls-server-name`` (an apiserver reached through an address its certificate does not name, e.g. a forwarder or a
    load balancer's IP). Both ways a connection is wrapped go through here: sockets (sync) and BIOs (asyncio)."""

    server_name: str

    def wrap_socket(  # the name given is replaced, the rest passed on
        self, sock: Any, server_side: bool = False, do_handshake_on_connect: bool = True,
        suppress_ragged_eofs: bool = True, server_hostname: Any = None, session: Any = None,
    ) -> ssl.SSLSocket:  # fmt: skip
        return super().wrap_socket(sock, server_side, do_handshake_on_connect, suppress_ragged_eofs, self.server_name,
                                   session)  # fmt: skip

    def wrap_bio(self, incoming: Any, outgoing: Any, server_side: bool = False, server_hostname: Any = None,
                 session: Any = None) -> ssl.SSLObject:  # fmt: skip
        return super().wrap_bio(incoming, outgoing, server_side, self.server_name, session)


@functools.lru_cache(maxsize=64)
def _tls(
    cafile: str | None, certfile: str | None, keyfile: str | None, verify: bool, server_name: str | None = None
) -> ssl.SSLContext:
    """One TLS context per cluster credential set (contexts are shareable; loading a CA file is not free)."""
    if not verify:
        ctx = ssl.create_default_context()
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    elif server_name:
        ctx = _NamedServerContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, and checks the name, as the default context
        ctx.server_name = server_name
        if cafile:
            ctx.load_verify_locations(cafile=cafile)
        else:
            ctx.load_default_certs()
    else:
        ctx = ssl.create_default_context(cafile=cafile)
    if certfile:
        ctx.load_cert_chain(certfile, keyfile)
    return ctx


def tls_context(cfg: k8s.Configuration) -> ssl.SSLContext:
    """The cluster ApiClient configuration's TLS context, shared by every exec and log follow of that cluster."""
    server_name = getattr(cfg, "tls_server_name", None) or None
    return _tls(cfg.ssl_ca_cert, cfg.cert_file, cfg.key_file, bool(cfg.verify_ssl), server_name)


def exec_url(host: str, namespace: str, pod: str, container: str, command: list[str], *, stdin: bool, tty: bool) -> str:
    query = [("command", part) for part in command] + [("container", container), ("stdout", "true")]
    query += [("stderr", "true"), ("stdin", "true" if stdin else "false"), ("tty", "true" if tty else "false")]
    base = host.rstrip("/").replace("https://", "wss://", 1).replace("http://", "ws://", 1)
    return f"{base}/api/v1/namespaces/{namespace}/pods/{pod}/exec?{urlencode(query)}"


def auth_headers(cfg: k8s.Configuration) -> dict[str, str]:
    """The ApiClient's header credentials (a bearer token; client certificates are in the TLS context)."""
    return {a["key"]: a["value"] for a in cfg.auth_settings().values() if a.get("in") == "header" and a["value"]}


def _refusal(exc: InvalidStatus) -> str:
    body = exc.response.body or b""
    try:
        message = str(json.loads(body).get("message", ""))
    except (ValueError, AttributeError):
        message = body.decode(errors="replace")[:200]
    return f"{exc.response.status_code} {message}".strip()


def run(
    cfg: k8s.Configuration,
    namespace: str,
    pod: str,
    container: str,
    command: tuple[str, ...],
    *,
    timeout: float = RUN_TIMEOUT,
) -> ExecResult:
    """Run ``command`` in ``container`` and wait for its exit status (never raises for what the apiserver or the
    connection does: the result says it)."""
    url = exec_url(str(cfg.host), namespace, pod, container, list(command), stdin=False, tty=False)
    status = b""
    try:
        with connect(
            url,
            ssl=tls_context(cfg) if url.startswith("wss://") else None,
            subprotocols=list(SUBPROTOCOLS),  # type: ignore[arg-type]  # Subprotocol is a NewType of str
            additional_headers=auth_headers(cfg),
            compression=None,
            open_timeout=OPEN_TIMEOUT,
            close_timeout=2.0,
            proxy=None,
            user_agent_header="pincompute-operator-exec",
        ) as ws:
            while True:
                message = ws.recv(timeout=timeout)
                raw = message.encode() if isinstance(message, str) else message
                if raw[:1] == bytes((ERROR_CHANNEL,)):
                    status += raw[1:]
    except ConnectionClosed as exc:
        if exc.rcvd is None or exc.rcvd.code != 1000:
            return ExecResult(None, f"the exec connection broke: {exc}")
    except InvalidStatus as exc:
        return ExecResult(None, _refusal(exc))
    except TimeoutError:
        return ExecResult(None, f"no exit status within {timeout:g} s")
    except (OSError, WebSocketException) as exc:
        return ExecResult(None, f"cannot open the exec: {exc}")
    code = exit_code(status)
    return ExecResult(code, "" if code is not None else "the exec ended without an exit status")
