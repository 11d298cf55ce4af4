"""What every debugging websocket does around its stream: refuse (audited), admit under the per-user cap,
re-check its authorization while open, and end once (bookkeeping before the close frame).

Revocation: a socket joins its event loop's access hub (``debugging.accesshub``) when it connects and takes the
user's access epoch *before* it is authorized; an access change (a membership, role, archive, sign-out or token
change, from any worker) reaches the hub, which raises the epoch and makes the socket run ``policy.recheck`` at
once; a periodic task runs it every ``DEBUG_RECHECK_SECONDS`` as a safety net. Before forwarding input the socket
compares the hub's epoch (in memory) with its own and re-checks first when it moved, so nothing sent after a change
commits reaches the pod. A socket reads its client's messages one at a time (``__call__``: no channel layer of its
own, the hub is the only way in), so a keystroke that arrives while a re-check runs waits for it.

Ending writes the session row and the subclass's audit *before* the close frame is sent: with uvicorn's default
(legacy ``websockets``) implementation ``close()`` returns only once the client has closed its TCP connection
(or after up to 4 x 10 s of close timeouts), so anything after it could wait that long.

Redis (the channel layer and the cache behind revocation) unreachable: the socket is accepted and closed with 4503
and a status saying why, instead of the ASGI server's bare 1011 and a traceback (``__call__``).

Every close frame the server sends carries its reason (``close_with``: the status message, cut to the 123 bytes a
close frame holds), so a client that missed the status message still learns why.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import replace
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from redis.exceptions import RedisError
from uvicorn.protocols.utils import ClientDisconnected

from base import metrics
from base.errors import Invalid, NotFound, ServiceError, Unauthenticated, Unavailable
from debugging import services
from debugging.accesshub import AccessHub, access_hub
from debugging.models import SessionKind
from debugging.policy import Grant, TooManySessions, access_deadline, limits, recheck, valid_name
from debugging.refusals import record_refusal

log = logging.getLogger(__name__)
NAME_PARTS = ("cluster", "namespace", "pod", "container", "workload")
CLOSE_REASON_BYTES = 123
LAYER_DOWN = Unavailable("Live sessions are unavailable: the portal cannot reach Redis (its message layer). Try again.")


def close_reason(message: str) -> str:
    """``message`` cut to what a close frame holds (123 bytes of UTF-8), on a character boundary."""
    return message.encode()[:CLOSE_REASON_BYTES].decode("utf-8", "ignore")


def _not_json(constant: str) -> None:
    """Python's parser takes NaN and Infinity, which JSON has not (``int(Infinity)`` is an OverflowError)."""
    raise ValueError(f"{constant} is not JSON")


class PolicedConsumer(AsyncJsonWebsocketConsumer):
    kind: str = SessionKind.LOGS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.grant: Grant | None = None
        self.session_id: int | None = None
        self.ended = False
        self.bytes_in = 0
        self.recheck_task: asyncio.Task[None] | None = None
        self.epoch = 0
        self.accepted = False
        self.hub: AccessHub | None = None
        self.hub_user: int | None = None
        self.checking = asyncio.Lock()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' consumer loop without a channel layer: the client's messages, one at a time, awaited directly
        (no task and ``asyncio.wait`` per message, no channel of its own: access changes come through the hub)."""
        self.scope, self.base_send, self.channel_layer = scope, send, None
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass
        except ClientDisconnected:  # an OSError too: the browser went away while we sent (not Redis)
            await self.end("client closed", None)
        except (RedisError, OSError) as exc:
            log.warning("websocket %s refused, Redis unreachable: %s: %s", scope.get("path"), type(exc).__name__, exc)
            await self.layer_down(send)
        except Exception:
            # A bug must not leave the pod-side stream, the session row (and the user's socket cap) and the re-check
            # loop running without a client: end them, then close 1011 as the server would have.
            log.exception("websocket %s failed", scope.get("path"))
            await self.fail()
        finally:
            self._leave_hub()

    async def fail(self) -> None:
        with contextlib.suppress(Exception):
            await self.end("portal error", 1011)
        with contextlib.suppress(RuntimeError, OSError):
            await self.close_with(1011, "The portal failed on this socket; reconnect.")

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """The client's messages are JSON text frames; anything else (a binary frame, text that is not JSON) ends
        the socket with 4400 and says why, its session ended and audited like any other close."""
        if self.ended:
            return
        if text_data is None:
            await self.bad_message("Binary frames are not accepted: send JSON text messages.")
            return
        try:
            content = json.loads(text_data, parse_constant=_not_json)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser follows
            await self.bad_message("Messages are JSON text; this one is not JSON.")
            return
        await self.receive_json(content)

    async def bad_message(self, message: str) -> None:
        await self.end(f"bad message: {message}", 4400)
        await self.status("error", message)
        await self.close_with(4400, message)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        """Join the hub and take the user's epoch before ``connect`` authorizes: a change that commits while it does
        moves the epoch past this one, and the socket re-checks (``admit``, ``still_allowed``)."""
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.hub, self.hub_user = access_hub(), user.pk
            self.hub.join(user.pk, self)
            self.epoch = await self.hub.epoch(user.pk)
        await super().websocket_connect(message)

    def _leave_hub(self) -> None:
        if self.hub is not None and self.hub_user is not None:
            self.hub.leave(self.hub_user, self)
            self.hub = None

    async def layer_down(self, send: Any) -> None:
        """Tell the client why, on the raw ASGI ``send`` (the consumer's own dispatch has ended)."""
        self.ended = True
        if self.recheck_task is not None:
            self.recheck_task.cancel()
        try:
            if not self.accepted:
                await send({"type": "websocket.accept"})
            text = json.dumps({"type": "status", "state": "error", "message": LAYER_DOWN.message})
            await send({"type": "websocket.send", "text": text})
            await send(
                {"type": "websocket.close", "code": LAYER_DOWN.close_code, "reason": close_reason(LAYER_DOWN.message)}
            )
        except (RuntimeError, OSError):  # the client went away meanwhile
            pass

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Channels' dispatch without its ``aclose_old_connections()`` before every message: that is a round trip to
        the socket's sync thread per keystroke (queued behind whatever that thread runs, a thread wake-up each way).
        Every database call of these consumers goes through ``database_sync_to_async``, which closes old
        connections before and after itself, so nothing here touches the database without it."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        self.accepted = True
        await super().accept(subprotocol, headers)

    async def status(self, state: str, message: str) -> None:
        await self.send_json({"type": "status", "state": state, "message": message})

    async def close_with(self, code: int, message: str) -> None:
        """The close frame, with ``message`` as its reason."""
        await self.close(code=code, reason=close_reason(message))

    def kwargs(self) -> dict[str, str]:
        return dict(self.scope["url_route"]["kwargs"])

    def bytes_out(self) -> int:
        return 0

    async def names_ok(self) -> bool:
        """Refuse (4400) a path whose names could not be Kubernetes names (``..``, an encoded ``/``, empty)."""
        bad = [part for part in NAME_PARTS if part in self.kwargs() and not valid_name(self.kwargs()[part])]
        if bad:
            await self.refuse(Invalid(f"Malformed {', '.join(bad)} in the path."))
        return not bad

    async def refuse(self, refused: ServiceError, *, project: str = "", cluster: str = "") -> None:
        await database_sync_to_async(record_refusal)(
            self.scope, refused.close_code, refused.message, project=project, cluster=cluster
        )
        await self.status("error", refused.message)
        await self.close_with(refused.close_code, refused.message)

    async def admit(
        self,
        *,
        project: Any,
        cluster: str,
        namespace: str,
        pod: str,
        container: str,
        need_exec: bool = False,
        sidecar: bool = False,
        detail: str = "",
        recorded: bool = False,
    ) -> bool:
        """Open the session row (per-user cap), join the user's group and start the periodic re-check."""
        user = self.scope["user"]
        try:
            row = await database_sync_to_async(services.start_session)(
                services.SessionTarget(project.name, cluster, namespace, pod, container),
                actor=user,
                kind=self.kind,
                auth_method=self.scope.get("auth_method", "session"),
                detail=detail,
                recorded=recorded,
            )
        except TooManySessions as refused:
            await self.refuse(refused, project=project.name, cluster=cluster)
            return False
        session = self.scope.get("session")
        self.session_id = row.pk
        metrics.OPEN_SESSIONS.labels(self.kind).inc()  # until end(), which sees session_id set
        self.grant = Grant(
            user_id=user.pk,
            project_id=project.pk,
            project_name=project.name,
            need_exec=need_exec,
            sidecar=sidecar,
            session_key=(getattr(session, "session_key", None) or "") if "authorization" not in self.scope else "",
            authorization=self.scope.get("authorization"),
        )
        self.grant = replace(self.grant, until=await database_sync_to_async(access_deadline)(self.grant))
        self.recheck_task = asyncio.create_task(self._recheck_loop())
        return await self.still_allowed()  # a change committed since the epoch was taken: re-check now

    async def access_changed(self, message: dict[str, Any]) -> None:
        """From the hub (``accounts.live_access``): the user's access changed somewhere; re-check now."""
        grant = self.grant
        if grant is None or self.ended:
            return
        if message.get("session") and message["session"] == grant.session_key:
            await self.revoke(Unauthenticated("Signed out."))
            return
        if message.get("project") and message["project"] != grant.project_name:
            return
        await self.still_allowed(force=True)

    async def still_allowed(self, *, force: bool = False) -> bool:
        """Before forwarding input: re-check when the user's access epoch moved (or ``force``); revoke if lost.
        The hub's epoch is in memory while its lease holds (a revocation returns only once every live hub has its
        new epoch), and read from Redis otherwise. The hub's notice runs beside the socket's own messages, so a
        re-check holds ``checking`` and the socket's epoch moves only once it passed: input that arrives meanwhile
        waits for its outcome."""
        grant, hub = self.grant, self.hub
        if grant is None or self.ended or hub is None:
            return False
        epoch = hub.known_epoch(grant.user_id)
        if epoch is None:
            epoch = await hub.epoch(grant.user_id)
        force = force or self.grant_ended()
        if epoch == self.epoch and not force and not self.checking.locked():
            return True
        async with self.checking:
            if self.ended:
                return False
            epoch = await hub.epoch(grant.user_id)
            if epoch == self.epoch and not force and not self.grant_ended():
                return True  # another re-check passed at this epoch meanwhile
            if not await self.checked_again():
                return False
            self.epoch = epoch
            return True

    def grant_ended(self) -> bool:
        """A time-limited grant the socket's access rests on has ended (by the clock, whether or not the expiry task
        ran): re-check before forwarding anything more."""
        return self.grant is not None and self.grant.until is not None and time.time() >= self.grant.until

    async def checked_again(self) -> bool:
        """``policy.recheck`` now; revoke on a refusal, else take the (maybe new) end of the grants it rests on."""
        assert self.grant is not None
        refused = await database_sync_to_async(recheck)(self.grant)
        if refused is not None:
            await self.revoke(refused)
            return False
        self.grant = replace(self.grant, until=await database_sync_to_async(access_deadline)(self.grant))
        return True

    async def _recheck_loop(self) -> None:
        assert self.grant is not None and self.session_id is not None
        while not self.ended:
            await asyncio.sleep(self.next_recheck_in())
            if self.ended or not await self.checked_again():
                return
            await database_sync_to_async(services.touch_session)(
                self.session_id, bytes_in=self.bytes_in, bytes_out=self.bytes_out()
            )
            await self.periodic_hook()

    def next_recheck_in(self) -> float:
        """Every ``DEBUG_RECHECK_SECONDS``, or sooner when a time-limited grant the socket rests on ends first."""
        wait = float(max(1, limits().recheck_seconds))
        if self.grant is not None and self.grant.until is not None:
            wait = min(wait, max(0.0, self.grant.until - time.time()) + 0.05)
        return wait

    async def revoke(self, refused: ServiceError) -> None:
        """Access was lost: stop the stream first, record it, then tell the client and close."""
        if self.ended:
            return
        await self.end(f"revoked: {refused.message}", refused.close_code)
        await self.status("error", refused.message)
        await self.close_with(refused.close_code, refused.message)

    async def stop_streams(self) -> None:
        """Subclasses stop their pod-side streams here (idempotent)."""

    async def ended_hook(self, reason: str) -> None:
        """Subclasses write their own audit row here (before the close frame)."""

    async def periodic_hook(self) -> None:
        """Subclasses save what they keep (a shell's recording) here, every ``DEBUG_RECHECK_SECONDS``."""

    async def end(self, reason: str, code: int | None) -> None:
        """Once: stop the streams, close the session row, leave the group, then the subclass's audit."""
        if self.ended:
            return
        self.ended = True
        if self.recheck_task is not None and self.recheck_task is not asyncio.current_task():
            self.recheck_task.cancel()
        await self.stop_streams()
        if self.session_id is not None:
            metrics.OPEN_SESSIONS.labels(self.kind).dec()
            await database_sync_to_async(services.end_session)(
                self.session_id, bytes_in=self.bytes_in, bytes_out=self.bytes_out(), reason=reason, code=code
            )
        self._leave_hub()
        await self.ended_hook(reason)

    async def disconnect(self, code: int) -> None:
        await self.end("client closed", code)


class UnmatchedConsumer(PolicedConsumer):
    """Any websocket path no route matches: a clean, audited 4404 instead of the router's exception (HTTP 500)."""

    async def connect(self) -> None:
        await self.accept()
        await self.refuse(NotFound("No such websocket endpoint."))
