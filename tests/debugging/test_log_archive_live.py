"""The log archive against the real VictoriaLogs the harness runs and the real local control plane: a Job's pod
prints, finishes and is deleted, and its console and file lines are read from the workload's archived-logs page, the
API and the CLI; another tenant reads none of them, whatever it types; a store restarted mid-stream loses no line, and
while it is down the portal answers 503, never a 500."""

from __future__ import annotations

# isort: off
import tests.support.sdk  # noqa: F401 - first: the SDK's own directory on sys.path, for pinconsole_sdk
# isort: on

import io
import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.test import Client as DjangoClient
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException
from pinconsole_sdk.cli import main
from pinconsole_sdk.client import Client

from accounts.services import create_api_token
from debugging.logs.archive import time_key
from devtools.localcp.nodes import api_client
from devtools.waiting import wait_for
from pincompute.labels import KIND_LABEL, PROJECT_LABEL, WORKLOAD_LABEL
from tests.support.debugging import member
from tests.support.factories import make_project
from tests.support.fakes import fake_pod

pytestmark = [pytest.mark.django_db, pytest.mark.integration, pytest.mark.cluster]
NAMESPACE, PROJECT = "proj-ads", "ads"  # tests.support.debugging's ``project``

HOSTILE = (
    '" or {namespace="proj-ads"}',
    '*" | union ({namespace="proj-ads"})',
    '\\" or * or "',
    '"} or {namespace=~".*"} | "',
    "ready",
    "*",
)


def archived(url: str, query: str, namespace: str) -> list[dict[str, Any]]:
    """What the store holds (read directly, as only the portal may: the tests check the portal against it)."""
    scope = json.dumps({"namespace": namespace})
    resp = httpx.post(f"{url}/select/logsql/query", data={"query": query, "extra_stream_filters": scope}, timeout=10)
    resp.raise_for_status()
    return [json.loads(line) for line in resp.text.splitlines() if line.strip()]


def ensure_namespace(core: k8s.CoreV1Api, name: str, project: str) -> None:
    body = k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name=name, labels={PROJECT_LABEL: project}))
    try:
        core.create_namespace(body)
    except ApiException as exc:
        if exc.status != 409:
            raise


@pytest.fixture(scope="module")
def deleted_job_pod(local_control_plane: Any, log_archive: Any) -> Iterator[dict[str, str]]:
    """A Job's pod on member-a that printed its lines, succeeded and was deleted with its Job; its lines archived."""
    api = api_client(str(local_control_plane.kubeconfig_path), "member-a")
    core, batch = k8s.CoreV1Api(api), k8s.BatchV1Api(api)
    ensure_namespace(core, NAMESPACE, PROJECT)
    workload = f"arch-{uuid.uuid4().hex[:6]}"
    labels = {WORKLOAD_LABEL: workload, KIND_LABEL: "PinterestJobSet"}
    template = k8s.V1PodTemplateSpec(
        metadata=k8s.V1ObjectMeta(labels=labels),
        spec=k8s.V1PodSpec(restart_policy="Never", containers=[k8s.V1Container(name="trainer", image="busybox")]),
    )
    job = k8s.V1Job(metadata=k8s.V1ObjectMeta(name=workload), spec=k8s.V1JobSpec(template=template))
    batch.create_namespaced_job(NAMESPACE, job)
    selector = f"{WORKLOAD_LABEL}={workload}"

    def succeeded() -> str | None:
        pods = core.list_namespaced_pod(NAMESPACE, label_selector=selector).items
        return pods[0].metadata.name if pods and pods[0].status.phase == "Succeeded" else None

    pod = wait_for(succeeded, timeout=120, what="the job's pod Succeeded")
    batch.delete_namespaced_job(workload, NAMESPACE, propagation_policy="Background")
    wait_for(lambda: not core.list_namespaced_pod(NAMESPACE, label_selector=selector).items, timeout=120, what="gone")
    query = f'{{pod="{pod}"}} "msg=\\"ready\\""'
    wait_for(lambda: archived(log_archive.url, query, NAMESPACE), timeout=60, what="its lines archived")
    yield {"pod": pod, "workload": workload}


def portal_transport() -> httpx.MockTransport:
    """The SDK's requests answered by the portal through Django's test client (the test's own database
    transaction, which a served portal in another thread would not see)."""
    django = DjangoClient()

    def answer(request: httpx.Request) -> httpx.Response:
        headers = {"Authorization": request.headers["Authorization"], "Accept": "application/json"}
        resp = django.generic(request.method, request.url.raw_path.decode(), request.content, headers=headers)
        return httpx.Response(resp.status_code, headers=dict(resp.headers), content=resp.content)

    return httpx.MockTransport(answer)


def cli(user: Any, *argv: str) -> tuple[int, str, str]:
    """The CLI's ``main`` in-process, its SDK client on the portal (``portal_transport``)."""
    token = create_api_token(user=user, name=f"cli-{time.monotonic_ns()}", days=1)[1]
    client = Client("http://testserver", token, transport=portal_transport())
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err, client=client)
    return code, out.getvalue(), err.getvalue()


def test_a_deleted_job_pods_lines_are_read_from_the_page_the_api_and_the_cli(
    deleted_job_pod, project, user, client, capsys
):
    member(project, user, "viewer")
    client.force_login(user)
    pod, workload = deleted_job_pod["pod"], deleted_job_pod["workload"]

    api = client.get(f"/api/v1/projects/{PROJECT}/logs/archive/", {"pod": pod, "since": "1h"})
    page = client.get(f"/debug/workload/{NAMESPACE}/{workload}/archive/")
    code, out, err = cli(user, "logs", pod, "-n", PROJECT, "--archived")
    capsys.readouterr()
    gone_code, gone_out, _ = cli(user, "logs", pod, "-n", PROJECT, "--cluster", "member-a")
    gone_err = capsys.readouterr().err  # the logs command's notes go to the process's stderr

    lines = api.json()["lines"]
    console = [line for line in lines if line["source"] == "console"]
    files = [line for line in lines if line["source"] == "/var/log/app.log"]
    assert api.status_code == 200
    assert {line["pod"] for line in lines} == {pod} and {line["cluster"] for line in lines} == {"member-a"}
    assert {line["container"] for line in lines} == {"trainer"}
    assert any('msg="ready"' in line["message"] for line in console)
    assert any('msg="ready"' in line["message"] for line in files)
    assert [line["time"] for line in lines] == sorted((line["time"] for line in lines), key=time_key, reverse=True)
    assert page.status_code == 200 and "msg=&quot;ready&quot;" in page.content.decode()
    assert pod in page.content.decode()  # in the archive's pod list, though it is gone
    assert code == 0, err
    printed = [int(s) for s in re.findall(rf"\[member-a/{NAMESPACE}/{pod}\] seq=(\d+) ", out)]
    assert printed[:4] == [0, 1, 2, 3]  # oldest first, from its start-up lines
    assert gone_code == 0 and "is gone" in gone_err and 'msg="ready"' in gone_out


def test_regex_source_stream_order_pages_and_download_on_the_real_store(deleted_job_pod, project, user, client):
    member(project, user, "viewer")
    client.force_login(user)
    pod, workload = deleted_job_pod["pod"], deleted_job_pod["workload"]
    url = f"/api/v1/projects/{PROJECT}/logs/archive/"
    window = {"pod": pod, "since": "1h"}

    regex = client.get(url, {**window, "regex": r"seq=[0-2] "}).json()["lines"]
    files = client.get(url, {**window, "source": "/var/log/app.log"}).json()["lines"]
    stdout = client.get(url, {**window, "stream": "stdout", "source": "console"}).json()["lines"]
    everything = client.get(url, {**window, "order": "oldest", "limit": "5000"}).json()["lines"]
    first = client.get(url, {**window, "order": "oldest", "limit": "3"}).json()
    second = client.get(url, {**window, "order": "oldest", "limit": "3", **first["next"]}).json()
    download = client.get(f"/debug/workload/{NAMESPACE}/{workload}/archive/download/", {"pod": pod, "since": "1h"})
    page = client.get(f"/debug/workload/{NAMESPACE}/{workload}/archive/", {"pod": pod, "limit": "3"}).content.decode()

    assert sorted({int(m) for line in regex for m in re.findall(r"seq=(\d) ", line["message"])}) == [0, 1, 2]
    assert files and {line["source"] for line in files} == {"/var/log/app.log"}
    assert stdout and {(line["source"], line["stream"]) for line in stdout} == {("console", "stdout")}
    times = [line["time"] for line in everything]
    assert times == sorted(times, key=time_key) and len(everything) > 6
    assert [line["time"] for line in first["lines"] + second["lines"]] == times[:6]  # no line twice, none skipped
    assert first["next"]["offset"] == "3" and second["next"]["until"] == first["next"]["until"]
    assert download.status_code == 200 and download["Content-Disposition"].startswith("attachment")
    assert download.content.decode().splitlines()[0].startswith(f"{times[0]} member-a/{pod}/trainer ")
    assert "data-archive-next" in page and "data-archive-download" in page
    bad = client.get(url, {**window, "regex": "(unclosed"})
    assert bad.status_code == 400 and bad.json()["error"]["fields"][0]["path"] == "regex"


def test_another_tenant_reads_none_of_its_lines(deleted_job_pod, project, other_project, user, client):
    member(other_project, user, "owner")
    client.force_login(user)
    pod = deleted_job_pod["pod"]

    foreign = client.get(f"/api/v1/projects/{PROJECT}/logs/archive/", {"pod": pod})
    forged = [client.get(f"/api/v1/projects/{other_project.name}/logs/archive/", {"q": q}) for q in HOSTILE]
    forged += [client.get(f"/api/v1/projects/{other_project.name}/logs/archive/", {"regex": q}) for q in HOSTILE]
    forged += [
        client.get(f"/api/v1/projects/{other_project.name}/logs/archive/", {"source": q, "since": "1h"})
        for q in HOSTILE
    ]
    named = client.get(f"/api/v1/projects/{other_project.name}/logs/archive/", {"pod": pod, "since": "1h"})
    bad_pod = client.get(f"/api/v1/projects/{other_project.name}/logs/archive/", {"pod": 'x"} or {pod=~".*'})
    code, out, _ = cli(user, "logs", pod, "-n", other_project.name, "--archived")

    assert foreign.status_code == 404
    assert [r.status_code for r in forged[: len(HOSTILE)]] == [200] * len(HOSTILE)
    assert all(r.status_code == 400 or r.json()["lines"] == [] for r in forged)  # 400: "*..." is no regex
    assert named.status_code == 200 and named.json()["lines"] == []
    assert bad_pod.status_code == 400 and bad_pod.json()["error"]["fields"][0]["path"] == "pod"
    assert code == 0 and pod not in out


def console_seqs(url: str, pod: str) -> set[int]:
    rows = archived(url, f'{{pod="{pod}",source="console"}}', NAMESPACE)
    return {int(m.group(1)) for r in rows if (m := re.search(r"\] seq=(\d+) ", r["_msg"]))}


def written_seq(log: Path) -> int:
    found = re.findall(r"\] seq=(\d+) ", log.read_text()) if log.exists() else []
    return int(found[-1]) if found else -1


def test_a_store_restarted_mid_stream_loses_no_line(local_control_plane, log_archive, project, user, client):
    member(project, user, "viewer")
    client.force_login(user)
    api = api_client(str(local_control_plane.kubeconfig_path), "member-a")
    core = k8s.CoreV1Api(api)
    ensure_namespace(core, NAMESPACE, PROJECT)
    pod = f"steady-{uuid.uuid4().hex[:6]}"
    spec = k8s.V1PodSpec(containers=[k8s.V1Container(name="app", image="busybox")])
    core.create_namespaced_pod(NAMESPACE, k8s.V1Pod(metadata=k8s.V1ObjectMeta(name=pod), spec=spec))
    member_a = next(c for c in local_control_plane.clusters if c.name == "member-a")
    console_log = Path(member_a.pod_logs_dir) / NAMESPACE / f"{pod}.log"
    try:
        wait_for(lambda: max(console_seqs(log_archive.url, pod), default=-1) >= 5, timeout=60, what="shipping")

        log_archive.stop()
        stopped_at = written_seq(console_log)
        down = client.get(f"/api/v1/projects/{PROJECT}/logs/archive/", {"pod": pod})
        page = client.get(f"/debug/workload/{NAMESPACE}/any/archive/")
        wait_for(lambda: written_seq(console_log) >= stopped_at + 3, timeout=60, what="lines written while down")
        last_while_down = written_seq(console_log)
        log_archive.start()

        wait_for(
            lambda: max(console_seqs(log_archive.url, pod), default=-1) >= last_while_down,
            timeout=90,
            what="lines written while down, shipped",
        )
        seqs = console_seqs(log_archive.url, pod)
    finally:
        if log_archive.proc is None:
            log_archive.start()
        core.delete_namespaced_pod(pod, NAMESPACE, grace_period_seconds=0)

    assert down.status_code == 503 and "log archive is unreachable" in down.json()["error"]["message"]
    assert down.headers["Retry-After"]
    assert page.status_code == 503 and "log archive is unreachable" in page.content.decode()
    assert set(range(last_while_down + 1)) <= seqs  # every line from the first, those written while it was down too


def test_a_failed_pods_page_and_its_workloads_fragment_show_its_last_lines(
    deleted_job_pod, fake_member, project, other_project, user, client
):
    """The cache still holds the pod as Failed (on the fake member): its page shows its archived last lines at
    once, and the workload page's fragment each failed pod's; the deleted workload's fragment the workload's."""
    pod, workload = deleted_job_pod["pod"], deleted_job_pod["workload"]
    fake_member.put("pods", fake_pod(pod, NAMESPACE, ("trainer",), phase="Failed", labels={WORKLOAD_LABEL: workload}))
    member(project, user, "viewer")
    client.force_login(user)

    page = client.get(f"/debug/member-x/{NAMESPACE}/{pod}/").content.decode()
    failed = client.get(f"/debug/workload/{NAMESPACE}/{workload}/archive/last/", {"failed": "1"}).content.decode()
    whole = client.get(f"/debug/workload/{NAMESPACE}/{workload}/archive/last/", {"since": "1h"}).content.decode()
    other = client.get(f"/debug/workload/{NAMESPACE}/web/archive/last/", {"failed": "1"}).content.decode()
    member(other_project, user, "owner")
    project.memberships.filter(user=user).delete()
    foreign = client.get(f"/debug/workload/{NAMESPACE}/{workload}/archive/last/", {"failed": "1"})

    for html in (page, failed):
        block = html[html.index(f'data-last-lines data-pod="{pod}"') :]
        assert block.count("msg=&quot;") >= 1 and "Every line in the log archive" in block
        assert 1 <= len(re.findall(r"^\S+Z trainer ", block, re.M)) <= 20  # its last 20 at most
    assert f"/debug/workload/{NAMESPACE}/{workload}/archive/?pod={pod}&amp;since=24h" in page
    assert "Failed pods: their last lines" in failed
    assert f"Z {pod}/trainer " in whole and "data-last-lines>" in whole
    assert "data-last-lines" not in other  # web-1 runs: no failed pod, nothing shown
    assert foreign.status_code == 404


def test_search_finds_the_gone_pod_by_part_of_its_name_as_its_developer_not_as_another_tenant(
    deleted_job_pod, project, other_project, user, client
):
    pod, workload = deleted_job_pod["pod"], deleted_job_pod["workload"]
    member(project, user, "developer")
    client.force_login(user)
    part = pod[len(workload) - 3 :]  # the middle and end of its name

    mine = client.get("/api/v1/search/", {"q": part}).json()["results"]
    gone = [hit for hit in mine if hit["name"] == pod]
    archived_page = client.get(gone[0]["url"]).content.decode() if gone else ""
    project.memberships.filter(user=user).delete()
    member(other_project, user, "owner")
    theirs = client.get("/api/v1/search/", {"q": part}).json()["results"]

    assert len(gone) == 1 and gone[0]["kind"] == "pod" and gone[0]["where"].startswith(f"gone pod of {workload}")
    assert gone[0]["url"] == f"/debug/workload/{NAMESPACE}/{workload}/archive/?pod={pod}&since=7d"
    assert "msg=&quot;ready&quot;" in archived_page
    assert pod not in json.dumps(theirs)


def test_an_admin_who_sees_every_project_finds_the_gone_pod_in_one_store_call(
    deleted_job_pod, project, admin_user, client
):
    """More projects than are asked one by one: the admins' one unscoped read of the archive's streams."""
    from django.core.cache import cache

    from search.gone_pods import EVERYWHERE_KEY, MAX_PROJECTS

    pod, workload = deleted_job_pod["pod"], deleted_job_pod["workload"]
    for i in range(MAX_PROJECTS + 1):
        make_project(f"many-{i:02d}")
    cache.delete(EVERYWHERE_KEY)
    client.force_login(admin_user)

    found = client.get("/api/v1/search/", {"q": pod[len(workload) - 3 :]}).json()["results"]

    gone = [hit for hit in found if hit["name"] == pod]
    assert len(gone) == 1 and gone[0]["where"].startswith(f"gone pod of {workload}"), found
    assert pod in {p for pods in cache.get(EVERYWHERE_KEY).values() for _, _, p in pods}
