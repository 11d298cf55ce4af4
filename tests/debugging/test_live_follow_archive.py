"""A pod's live log carrying on into the log archive, against the real local control plane and the harness's
VictoriaLogs: a followed pod that is deleted goes on from the archive after the last line shown (no line twice, none
skipped); a pod already gone serves its archived lines, and a resume carries on after its seq; another tenant is
refused as before (4404)."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from kubernetes import client as k8s

from clusters import runtime
from console.asgi import application
from devtools.localcp.nodes import api_client
from devtools.waiting import wait_for
from tests.support.debugging import closed_with, collect_lines, member, run_pod, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]


def seqs(lines: list[dict[str, Any]]) -> list[int]:
    return [int(m.group(1)) for line in lines if (m := re.search(r"\] seq=(\d+) ", line["text"]))]


def archived_seqs(namespace: str, pod: str) -> list[int]:
    """What the store holds of the pod's console (read directly, as only the portal may)."""
    resp = httpx.post(
        f"{settings.LOG_ARCHIVE_URL}/select/logsql/query",
        data={
            "query": f'{{pod="{pod}",source="console"}}',
            "extra_stream_filters": json.dumps({"namespace": namespace}),
        },
        timeout=10,
    )
    resp.raise_for_status()
    rows = [json.loads(raw) for raw in resp.text.splitlines() if raw.strip()]
    return sorted(int(m.group(1)) for r in rows if (m := re.search(r"\] seq=(\d+) ", r["_msg"])))


@pytest.fixture
def own_pod(live_pods: Any, local_control_plane: Any) -> Any:
    """A Running pod of the test's own in proj-ads on member-a (the test deletes it; ``live_pods`` registered the
    clusters)."""
    name = f"{live_pods['workload']}-own"
    run_pod(str(local_control_plane.kubeconfig_path), "member-a", live_pods["namespace"], name, {})
    return name


def delete_and_wait(kubeconfig: str, namespace: str, pod: str) -> None:
    core = k8s.CoreV1Api(api_client(kubeconfig, "member-a"))
    core.delete_namespaced_pod(pod, namespace, grace_period_seconds=0)
    cache = runtime.member_caches()["member-a"]
    wait_for(lambda: cache.get("pods", namespace, pod) is None, timeout=60, what="the pod gone from the cache")


async def opened(path: str, user: Any) -> WebsocketCommunicator:
    comm = WebsocketCommunicator(application, path, headers=await database_sync_to_async(ws_headers)(user))
    assert (await comm.connect(timeout=20))[0]
    return comm


def lines_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for m in messages if m["type"] == "lines" for line in m["lines"]]


async def test_a_followed_pod_that_is_deleted_goes_on_from_the_archive(
    live_pods, own_pod, local_control_plane, project, user
):
    await database_sync_to_async(member)(project, user, "viewer")
    pod, namespace = own_pod, live_pods["namespace"]
    comm = await opened(f"/ws/logs/member-a/{namespace}/{pod}/app/?tail=5", user)
    live = await collect_lines(comm, 8, timeout=60)

    await database_sync_to_async(delete_and_wait)(str(local_control_plane.kubeconfig_path), namespace, pod)
    rest, code = await closed_with(comm, timeout=120)

    shown = seqs(live + lines_of(rest))
    statuses = [m["message"] for m in rest if m["type"] == "status"]
    assert code == 1000, statuses
    assert any("what the log archive has after it follows" in s for s in statuses), statuses
    assert shown == list(range(shown[0], shown[0] + len(shown))), shown  # no line twice, none skipped
    held = await database_sync_to_async(archived_seqs)(namespace, pod)
    assert [s for s in held if shown[0] <= s <= shown[-1]] == shown


async def test_a_gone_pod_serves_its_archived_lines_and_a_resume_goes_on_after_its_seq(
    live_pods, own_pod, local_control_plane, project, user
):
    await database_sync_to_async(member)(project, user, "viewer")
    pod, namespace = own_pod, live_pods["namespace"]
    wait_for(lambda: len(archived_seqs(namespace, pod)) >= 8, timeout=60, what="lines archived")
    await database_sync_to_async(delete_and_wait)(str(local_control_plane.kubeconfig_path), namespace, pod)

    first, code = await closed_with(await opened(f"/ws/logs/member-a/{namespace}/{pod}/app/?tail=4", user), 60)
    resumed = await opened(f"/ws/logs/member-a/{namespace}/{pod}/app/?tail=4", user)
    await resumed.send_json_to({"type": "resume", "after_seq": lines_of(first)[1]["seq"]})
    again, again_code = await closed_with(resumed, 60)
    everything = set(seqs(lines_of(first) + lines_of(again)))
    held = await database_sync_to_async(wait_for)(
        lambda: found if everything <= set(found := archived_seqs(namespace, pod)) else None,
        timeout=60,
        what="the store's own reads holding what was streamed",
    )

    shown = seqs(lines_of(first))
    assert code == 1000 and first[0]["message"] == f"Pod {pod} is gone: its lines from the log archive."
    # the last 4, then any line the node's agent shipped a moment later (the deleted pod's last): none skipped
    assert len(shown) >= 4 and shown == list(range(shown[0], shown[0] + len(shown))) and set(shown) <= set(held)
    assert again_code == 1000 and seqs(lines_of(again)) == [s for s in held if s > shown[1]]  # none twice, none lost
    resumed_seqs = [line["seq"] for line in lines_of(again)]
    assert resumed_seqs[: len(shown) - 2] == [line["seq"] for line in lines_of(first)[2:]]


async def test_another_tenants_gone_pod_is_refused_as_any_missing_pod(
    live_pods, own_pod, local_control_plane, project, other_project, user
):
    await database_sync_to_async(member)(other_project, user, "owner")
    pod, namespace = own_pod, live_pods["namespace"]
    await database_sync_to_async(delete_and_wait)(str(local_control_plane.kubeconfig_path), namespace, pod)

    seen, code = await closed_with(await opened(f"/ws/logs/member-a/{namespace}/{pod}/app/", user), 30)

    assert code == 4404 and seen[-1]["message"] == "No such pod."
    assert not lines_of(seen)
