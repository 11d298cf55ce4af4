"""Debug containers against the real local control plane (issue 35 §4): a crash-looping pod gets a debug container
(an ephemeral container added through the member's apiserver, run by the pod supervisor in the pod's sandbox) whose
shell sees the pod's own files; audited and recorded; refused to viewers, for platform sidecars, for an image off the
allowlist and for another tenant's pod. The page's Debug action polls while it starts, then shows the terminal."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.test import Client
from kubernetes import client as k8s

from base.models import AuditEvent
from clusters import runtime
from console.asgi import application
from debugging.models import DebugSession, SessionRecording
from devtools.localcp.nodes import api_client
from devtools.waiting import wait_for
from tests.support.api_host import client_for
from tests.support.debugging import member, read_until, ws_headers
from tests.support.wsclient import WebsocketCommunicator

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_thread_connections"),
]
IMAGE = "busybox:1.37"


def crash_loop(local_control_plane: Any, namespace: str, pod: str) -> None:
    """The pod's ``app`` container crash-loops, as a kubelet reports it: waiting in CrashLoopBackOff, last exit 1."""
    core = k8s.CoreV1Api(api_client(str(local_control_plane.kubeconfig_path), "member-a"))
    terminated = {"exitCode": 1, "reason": "Error", "finishedAt": "2026-01-01T00:00:00Z"}
    status = {
        "name": "app",
        "image": "busybox",
        "imageID": "",
        "ready": False,
        "restartCount": 5,
        "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 2m40s restarting failed container"}},
        "lastState": {"terminated": terminated},
    }
    core.patch_namespaced_pod_status(pod, namespace, {"status": {"containerStatuses": [status]}})
    cache = runtime.member_caches()["member-a"]

    def waiting() -> bool:
        statuses = ((cache.get("pods", namespace, pod) or {}).get("status") or {}).get("containerStatuses") or []
        return any((s.get("state") or {}).get("waiting", {}).get("reason") == "CrashLoopBackOff" for s in statuses)

    wait_for(waiting, 30, what=f"{pod} crash-looping in the cache")


def debug_url(pod: str, name: str = "") -> str:
    return f"/api/v1/projects/ads/pods/member-a/{pod}/debug/" + (f"{name}/" if name else "")


def until_running(api: Any, pod: str, name: str) -> dict[str, Any]:
    def running() -> dict[str, Any] | None:
        body = api.get(debug_url(pod, name)).json()
        return body if body["state"] == "running" else None

    return wait_for(running, 60, what=f"debug container {name} running")


async def test_a_crash_looping_pod_gets_a_debug_container_whose_shell_sees_the_pods_own_files(
    live_pods, project, user, local_control_plane
):
    member(project, user, "developer")
    project.record_shells = True
    await database_sync_to_async(project.save)()
    pod = live_pods["names"][0]
    await sync_to_async(crash_loop)(local_control_plane, project.namespace, pod)
    api = client_for(user)

    started = await sync_to_async(api.post)(debug_url(pod), {"container": "app", "image": IMAGE}, format="json")
    assert started.status_code == 201, started.content
    body = started.json()
    running = await sync_to_async(until_running)(api, pod, body["name"])
    path = "/" + running["shell"].split("/", 3)[3]
    comm = WebsocketCommunicator(application, path, headers=ws_headers(user))
    assert (await comm.connect(timeout=20))[0]
    assert (await comm.receive_json_from(timeout=20))["state"] == "connected"
    await comm.send_json_to({"type": "stdin", "data": "hostname; head -1 /var/log/app.log; exit\r"})
    output = await read_until(comm, f"[{project.namespace}/{pod}] seq=")
    await comm.disconnect()

    assert (body["target"], body["image"], body["state"]) == ("app", IMAGE, "waiting")
    assert body["name"].startswith("debugger-") and running["shell"].endswith(f"/{pod}/{body['name']}/")
    assert pod in output  # the pod's hostname and its program's own log file
    pods = k8s.CoreV1Api(api_client(str(local_control_plane.kubeconfig_path), "member-a"))
    live = await sync_to_async(pods.read_namespaced_pod)(pod, project.namespace)
    (added,) = live.spec.ephemeral_containers
    assert (added.name, added.image, added.target_container_name) == (body["name"], IMAGE, "app")
    assert added.security_context.run_as_non_root and added.security_context.capabilities.drop == ["ALL"]

    def audited() -> tuple[AuditEvent, AuditEvent, SessionRecording]:
        start = AuditEvent.objects.get(action="debug.start")
        opened = AuditEvent.objects.get(action="shell.open")
        session = DebugSession.objects.get(container=body["name"])
        return start, opened, wait_for(lambda: SessionRecording.objects.filter(session=session).first(), 30)

    start, opened, recording = await database_sync_to_async(audited)()
    assert start.actor_id == user.pk and start.target_name == f"{project.namespace}/{pod}/{body['name']}"
    assert start.after == {"container": body["name"], "target": "app", "image": IMAGE}
    assert opened.target_name == f"{project.namespace}/{pod}/{body['name']}" and opened.after["recorded"] is True
    assert "seq=" in recording.cast


def test_the_pages_debug_action_polls_while_the_container_starts_then_shows_its_terminal(live_pods, project, user):
    member(project, user, "developer")
    pod = live_pods["names"][0]
    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/debug/member-a/{project.namespace}/{pod}/")
    assert b"data-debug-tab" in page.content and b'name="image"' in page.content

    started = browser.post(
        f"/debug/member-a/{project.namespace}/{pod}/debug/",
        {"container": "app", "image": IMAGE},
        HTTP_HX_REQUEST="true",
    )
    name = started.content.decode().split('data-debug-container="', 1)[1].split('"', 1)[0]
    panel = f"/debug/member-a/{project.namespace}/{pod}/debug/{name}/"

    def terminal() -> str | None:
        html = browser.get(panel, HTTP_HX_REQUEST="true").content.decode()
        return html if 'data-state="running"' in html else None

    html = wait_for(terminal, 60, what="the debug container's terminal")
    assert started.status_code == 201 and 'data-state="waiting"' in started.content.decode()
    assert f'hx-get="{panel}" hx-trigger="every 1s"' in started.content.decode()  # it polls until the container runs
    assert f'data-ws-url="/ws/exec/member-a/{project.namespace}/{pod}/{name}/"' in html


def test_refusals_viewer_image_sidecar_other_tenant_and_nothing_is_added(
    live_pods, project, other_project, user, django_user_model, local_control_plane
):
    member(project, user, "viewer")
    developer = django_user_model.objects.create_user("dev2", password="x")
    member(project, developer, "developer")
    outsider = django_user_model.objects.create_user("outsider", password="x")
    member(other_project, outsider, "owner")
    pod = live_pods["names"][0]
    core = k8s.CoreV1Api(api_client(str(local_control_plane.kubeconfig_path), "member-a"))
    sidecar = k8s.V1Container(name="pincompute-traffic", image="envoy")
    core.create_namespaced_pod(
        project.namespace,
        k8s.V1Pod(
            metadata=k8s.V1ObjectMeta(name=f"{pod}-sc"),
            spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="busybox"), sidecar]),
        ),
    )
    cache = runtime.member_caches()["member-a"]
    wait_for(lambda: cache.get("pods", project.namespace, f"{pod}-sc"), 30, what="the sidecar pod in the cache")

    viewer = client_for(user).post(debug_url(pod), {"container": "app", "image": IMAGE}, format="json")
    off_list = client_for(developer).post(debug_url(pod), {"container": "app", "image": "evil:latest"}, format="json")
    no_target = client_for(developer).post(debug_url(pod), {"container": "absent"}, format="json")
    on_sidecar = client_for(developer).post(debug_url(f"{pod}-sc"), {"container": "pincompute-traffic"}, format="json")
    elsewhere = client_for(outsider).post(
        f"/api/v1/projects/ml/pods/member-a/{pod}/debug/", {"image": IMAGE}, format="json"
    )
    not_theirs = client_for(outsider).post(debug_url(pod), {"image": IMAGE}, format="json")

    assert viewer.status_code == 403, viewer.content
    assert off_list.status_code == 400 and off_list.json()["error"]["fields"][0]["path"] == "image"
    assert "busybox:1.37" in off_list.json()["error"]["fields"][0]["message"]
    assert no_target.status_code == 400 and no_target.json()["error"]["fields"][0]["path"] == "container"
    assert on_sidecar.status_code == 403 and "sidecar" in on_sidecar.json()["error"]["message"]
    assert (elsewhere.status_code, not_theirs.status_code) == (404, 404)
    for name in (pod, f"{pod}-sc"):
        assert not core.read_namespaced_pod(name, project.namespace).spec.ephemeral_containers
    assert not AuditEvent.objects.filter(action="debug.start").exists()
    core.delete_namespaced_pod(f"{pod}-sc", project.namespace, grace_period_seconds=0)
