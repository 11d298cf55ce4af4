"""``debugging.kubeexec`` through the real member apiserver to kwok's confined pods: both protocol versions, exit
status, stderr apart from stdout, resize, UTF-8 across frames, a refusal's reason, one TLS context per cluster."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from channels.db import database_sync_to_async
from websockets.exceptions import InvalidStatus

from debugging.accesshub import access_hub
from debugging.kubeexec import STDERR, STDOUT, SUBPROTOCOLS, ExecResult, ExecSession, refusal
from devtools.localcp.nodes import api_client
from projects.members import remove_member
from tests.support.debugging import closed_with, member, open_shell, read_until, ws_headers

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


@pytest.fixture
def member_a(local_control_plane: Any) -> Any:
    return api_client(str(local_control_plane.kubeconfig_path), "member-a")


async def run(session: ExecSession) -> tuple[dict[int, str], ExecResult]:
    out: dict[int, str] = {STDOUT: "", STDERR: ""}
    await session.open()
    try:
        async with asyncio.timeout(30):
            async for item in session.channels():
                if isinstance(item, ExecResult):
                    return out, item
                out[item[0]] += item[1]
    finally:
        await session.close(hangup=False)
    raise AssertionError("the exec ended without a result")


@pytest.mark.parametrize("protocol", SUBPROTOCOLS)
async def test_a_command_s_stdout_stderr_and_exit_status_arrive_apart(live_pods, member_a, protocol):
    utf8 = "\\303\\251t\\303\\251 \\342\\234\\223"  # "été ✓" as octal escapes
    script = f"printf 'out-%s\\n' $((6*7)); printf 'err-1\\n' >&2; printf '{utf8}'; exit 5"
    pod = live_pods["names"][0]
    command = ["/bin/sh", "-c", script]
    session = ExecSession(
        member_a, live_pods["namespace"], pod, "app", command, stdin=False, tty=False, subprotocols=(protocol,)
    )

    out, result = await run(session)

    assert session.ws is not None and session.ws.subprotocol == protocol
    assert out[STDOUT] == "out-42\nété ✓" and out[STDERR] == "err-1\n"
    assert result == ExecResult("exited", 5)
    assert session.bytes_out == len("out-42\nété ✓".encode()) + len(b"err-1\n")


async def test_a_terminal_session_echoes_keystrokes_and_takes_its_size(live_pods, member_a):
    session = ExecSession(member_a, live_pods["namespace"], live_pods["names"][0], "app", ["/bin/sh"])
    await session.open()
    output = session.output()
    seen = ""
    try:
        await session.resize(77, 19)
        await session.write_stdin("stty size; echo done-$((40+2))\r")
        async with asyncio.timeout(20):
            while "done-42" not in seen.replace("done-$((40+2))", ""):
                item = await anext(output)
                assert isinstance(item, str), item
                seen += item
        await session.write_stdin("exit 4\r")
        async with asyncio.timeout(20):
            async for item in output:
                if isinstance(item, ExecResult):
                    assert item.exit_code == 4
                    break
    finally:
        await session.close()
    assert "19 77" in seen


async def test_a_missing_pod_is_refused_with_the_apiserver_s_reason(live_pods, member_a):
    session = ExecSession(member_a, live_pods["namespace"], "no-such-pod", "app", ["/bin/sh"])

    with pytest.raises(InvalidStatus) as refused:
        await session.open()

    assert refused.value.response.status_code == 404
    assert refusal(refused.value) == '404 pods "no-such-pod" not found'


async def test_every_session_of_a_cluster_shares_one_tls_context(live_pods, member_a):
    sessions = [ExecSession(member_a, live_pods["namespace"], name, "app", ["/bin/sh"]) for name in live_pods["names"]]
    for session in sessions:
        await session.open()
    try:
        contexts = {id(s.ws.transport.get_extra_info("ssl_object").context) for s in sessions if s.ws is not None}
    finally:
        for session in sessions:
            await session.close(hangup=True)
    assert len(contexts) == 1


async def test_with_the_epoch_kept_in_memory_a_removal_still_closes_the_open_shell(
    live_pods, project, user, admin_user
):
    """Keystrokes compare the epoch the access hub keeps in memory (no Redis read each); the hub's notice of the
    removal re-checks the idle shell and closes it, with no keystroke to trigger it."""
    await database_sync_to_async(member)(project, user, "developer")
    pod = live_pods["names"][0]
    comm = await open_shell(f"/ws/exec/member-a/{project.namespace}/{pod}/app/", ws_headers(user))
    await comm.send_json_to({"type": "stdin", "data": "echo typed-$((2+3))\r"})
    await read_until(comm, "typed-5")
    hub, deadline = access_hub(), time.monotonic() + 5
    while hub.known_epoch(user.pk) is None:  # the lease's first pong, then a keystroke's epoch read is kept
        assert time.monotonic() < deadline, "the hub never trusted its memory"
        await comm.send_json_to({"type": "stdin", "data": "\r"})
        await asyncio.sleep(0.1)

    await database_sync_to_async(remove_member)(project, "user", user.username, actor=admin_user)
    messages, code = await closed_with(comm)

    assert code == 4403 and any("no longer a member" in m.get("message", "") for m in messages)
