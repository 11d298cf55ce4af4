"""Dev pods recover as a kubelet's would (probe5 #11, #12), against the real local control plane.

- A Running pod whose Ready condition was set False (the node lifecycle controller does so for every pod of a
  node it saw NotReady, e.g. during an apiserver outage) is reported Ready again.
- A shell whose connection drops (the portal worker holding it killed: no ^C/^D, no close frame) is hung up:
  its processes end, as when a kubelet's pty closes.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kubernetes import client

from debugging.kubeexec import SUBPROTOCOLS, ExecSession
from devtools.localcp import LocalControlPlane
from devtools.localcp.pods.podfs import POD_UID
from tests.integration.cluster.helpers import delete_namespace, make_namespace, simple_pod, wait_pod_running

pytestmark = [pytest.mark.integration, pytest.mark.cluster]
CLUSTER = "member-a"


@pytest.fixture
def pod(member_api_clients: dict[str, client.ApiClient]) -> Iterator[tuple[client.ApiClient, str, str]]:
    api = member_api_clients[CLUSTER]
    ns = make_namespace(api, "devpods")
    client.CoreV1Api(api).create_namespaced_pod(ns, simple_pod("recover"))
    wait_pod_running(api, ns, "recover")
    yield api, ns, "recover"
    delete_namespace(api, ns)


def ready(api: client.ApiClient, ns: str, name: str) -> str | None:
    status = client.CoreV1Api(api).read_namespaced_pod_status(name, ns).status
    return next((c.status for c in status.conditions or [] if c.type == "Ready"), None)


def wait_ready(api: client.ApiClient, ns: str, name: str, want: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while (got := ready(api, ns, name)) != want:
        assert time.monotonic() < deadline, f"pod {ns}/{name}: Ready={got}, expected {want} within {timeout} s"
        time.sleep(0.25)


def test_a_running_pod_set_not_ready_is_reported_ready_again(pod: tuple[client.ApiClient, str, str]) -> None:
    api, ns, name = pod
    wait_ready(api, ns, name, "True", 30)
    # What the node lifecycle controller does (MarkPodsNotReady): the Ready condition only, via the status subresource.
    body = {
        "status": {
            "conditions": [
                {
                    "type": "Ready",
                    "status": "False",
                    "reason": "NodeNotReady",
                    "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                }
            ]
        }
    }
    patched = client.CoreV1Api(api).patch_namespaced_pod_status(name, ns, body)
    assert patched.status.phase == "Running"
    assert {c.type: c.status for c in patched.status.conditions}["Ready"] == "False"
    wait_ready(api, ns, name, "True", 30)
    status = client.CoreV1Api(api).read_namespaced_pod_status(name, ns).status
    conditions = {c.type: c.status for c in status.conditions}
    assert status.phase == "Running"
    assert conditions == {"Initialized": "True", "Ready": "True", "ContainersReady": "True", "PodScheduled": "True"}


def sandbox_pids(token: str) -> list[int]:
    """Processes of the pod user whose command line carries ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != POD_UID:
                continue
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if token.encode() in argv:
            found.append(int(entry.name))
    return found


# kube-apiserver translates a v5 websocket exec (the portal's) to SPDY towards kwok. When the client goes, the
# translator only half-closes the exec's stdin and keeps its SPDY connection to kwok open until the command ends;
# kwok v0.8.0 passes that end of input on neither to the pty nor to the stdin pipe, and never cancels the exec.
# Nothing reaches podshim or the sandbox, so the pod supervisor cannot tell (probe5 #12, left open).
KWOK_BLIND = pytest.mark.xfail(
    strict=True, reason="kwok v0.8.0 ignores the end of stdin of an exec relayed by the apiserver's v5 translator"
)


@pytest.mark.parametrize(
    ("subprotocol", "tty"),
    [
        pytest.param(SUBPROTOCOLS[1], True, id="v4-tty"),
        pytest.param(SUBPROTOCOLS[1], False, id="v4-pipes"),
        pytest.param(SUBPROTOCOLS[0], True, id="portal-v5-tty", marks=KWOK_BLIND),
        pytest.param(SUBPROTOCOLS[0], False, id="v5-pipes", marks=KWOK_BLIND),
    ],
)
async def test_a_shell_whose_connection_drops_is_hung_up(
    pod: tuple[client.ApiClient, str, str], local_control_plane: LocalControlPlane, subprotocol: str, tty: bool
) -> None:
    """The session's processes get SIGHUP (the shell's HUP trap runs, as on a pty hangup), then end."""
    api, ns, name = pod
    token = f"300.{random.randrange(10**6):06d}"  # a unique argument
    trapped = Path(local_control_plane.cluster(CLUSTER).pods_dir or "") / ns / name / "fs" / "tmp" / f"hup-{token}"
    session = ExecSession(api, ns, name, "app", ["sh"], tty=tty, subprotocols=(subprotocol,))
    await session.open()
    assert session.ws is not None and session.ws.subprotocol == subprotocol
    await session.write_stdin(f"trap 'echo hup > /tmp/hup-{token}; exit 129' HUP; sleep {token}\n")
    deadline = time.monotonic() + 20
    while not sandbox_pids(token):
        assert time.monotonic() < deadline, "sleep did not start in the pod"
        await asyncio.sleep(0.25)
    # The client goes away without a word (its worker killed): no ^C/^D, no close frame, the socket just closes.
    session.ws.transport.abort()
    started = time.monotonic()
    while pids := sandbox_pids(token):
        if time.monotonic() - started > 15:
            for pid in pids:  # do not leave it behind
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"sleep {token} still runs 15 s after its client went away (pids {pids})")
        await asyncio.sleep(0.25)
    deadline = time.monotonic() + 10  # the trap runs once sleep is gone (the shell may wait its turn on a busy machine)
    while not (trapped.exists() and trapped.read_text() == "hup\n"):
        assert time.monotonic() < deadline, "the shell was killed without a hangup"
        await asyncio.sleep(0.1)


async def test_a_command_whose_output_reader_went_away_is_hung_up(pod: tuple[client.ApiClient, str, str]) -> None:
    """A non-tty exec relayed by the v5 translator: once the client is gone, kwok's next write of the command's
    output fails and kwok closes its end of the stdout pipe. A loop whose output comes from its children (each one
    dies of SIGPIPE, the loop goes on) is hung up then, rather than looping for ever."""
    api, ns, name = pod
    token = f"loop-{random.randrange(10**6):06d}"  # the shell's $0
    script = "while :; do date; sleep 0.3; done"
    session = ExecSession(api, ns, name, "app", ["sh", "-c", script, token], tty=False, subprotocols=(SUBPROTOCOLS[0],))
    await session.open()
    deadline = time.monotonic() + 20
    while not sandbox_pids(token):
        assert time.monotonic() < deadline, "the loop did not start in the pod"
        await asyncio.sleep(0.25)
    assert session.ws is not None
    session.ws.transport.abort()
    started = time.monotonic()
    while pids := sandbox_pids(token):
        if time.monotonic() - started > 15:
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the loop {token} still runs 15 s after its client went away (pids {pids})")
        await asyncio.sleep(0.25)
