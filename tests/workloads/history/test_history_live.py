# ruff: noqa: F811 - fixtures imported from other modules are named as parameters
"""The workload history against the real stack (host and member apiservers, the federation operator, the recorder
as its own leader-elected process on the test database): a workload submitted, scaled, restarted and deleted keeps
its history (transitions, admission, placement, scale, operation, the Events of it and its pods) and its spec at
deletion, readable on its page, the API and the CLI, by its project's members only, until retention prunes it; a
recorder killed mid-run leaves the lease to a second one that records what happened meanwhile and nothing twice."""

from __future__ import annotations

import io
import re
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from accounts.services import create_api_token
from devtools.recorder_process import RecorderProcess
from devtools.waiting import wait_for
from projects.models import Membership
from tests.support.provisioning import (  # noqa: F401
    eager_tasks,
    federation,
    pools,
    register,
    subprocess_env,
    team_project,
)
from tests.support.sdk import SDK_DIR  # noqa: F401 - puts the SDK on the path (it installs alone)
from tests.support.submission import pinapp
from tests.support.workload_operator import created, operator  # noqa: F401
from workloads import services
from workloads.history import services as history
from workloads.history.models import HistoryEntry, WorkloadRecord

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]


@pytest.fixture
def project(admin_user: Any, user: Any) -> Any:
    return team_project("hist", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})


@pytest.fixture
def recorders(tmp_path, federation):
    """``start(identity)``: a recorder process on this test's own lease, once it leads; all stopped afterwards."""
    lease, started = f"hist-{uuid.uuid4().hex[:6]}", []

    def start(identity: str) -> RecorderProcess:
        proc = RecorderProcess(
            tmp_path / f"{identity}.log",
            identity=identity,
            lease_name=lease,
            lease_duration=3,
            interval=0.5,
            env=subprocess_env(),
        ).start()
        started.append(proc)
        wait_for(proc.leading, 120, interval=0.5, what=f"{identity} leading")
        return proc

    yield start
    for proc in started:
        proc.stop()


def entries(project: Any, name: str = "web") -> list[HistoryEntry]:
    return list(HistoryEntry.objects.filter(record__project=project, record__name=name).order_by("at", "pk"))


def has(project: Any, **match: Any) -> bool:
    return HistoryEntry.objects.filter(record__project=project, record__name="web", **match).exists()


def test_a_deleted_workloads_history_survives_a_killed_recorder_and_stays_readable_until_retention(
    operator, created, project, user, recorders, client, live_server, tmp_path
):
    first = recorders("rec-1")
    services.submit_workload(project, pinapp("web"), actor=user)
    created.append(("PinApp", project.namespace, "web"))
    wait_for(lambda: has(project, category="admission") and has(project, category="placement"), 120, what="placed")
    wait_for(lambda: has(project, category="event", subject__startswith="Pod "), 120, what="a pod's event recorded")
    services.operate_workload(project, "PinApp", "web", "scale", actor=user, replicas=3)
    wait_for(lambda: has(project, category="scale", title="Scaled 2 → 3"), 120, what="the scale recorded")

    first.kill()  # mid-run: no release, no last pass
    before = {(e.key, e.count) for e in entries(project)}
    services.operate_workload(project, "PinApp", "web", "scale", actor=user, replicas=1)
    services.operate_workload(project, "PinApp", "web", "restart", actor=user)
    second = recorders("rec-2")  # takes the lease once the killed one's expires
    wait_for(lambda: has(project, category="scale", title="Scaled 3 → 1"), 120, what="the missed scale recorded")
    wait_for(lambda: has(project, category="operation", title__startswith="Operation restartedAt"), 60, what="op")

    after = entries(project)
    keys = {e.key for e in after}
    assert {key for key, _ in before} <= keys  # nothing lost
    same = Counter((e.category, e.source, e.title, e.subject, e.message, e.at) for e in after)
    assert [k for k, n in same.items() if n > 1] == []  # nothing twice
    assert sum(1 for e in after if e.category == "scale") == 2

    services.delete_workload(project, "PinApp", "web", actor=user)
    created.remove(("PinApp", project.namespace, "web"))
    wait_for(lambda: WorkloadRecord.objects.filter(project=project, deleted_at__isnull=False).exists(), 120)
    assert second.alive()

    # the API: the deleted list and the workload, its spec at deletion and its history, filtered
    client.force_login(user)
    listed = client.get(f"/api/v1/projects/{project.name}/workloads/deleted/").json()["results"]
    assert [(r["kind"], r["name"]) for r in listed] == [("PinApp", "web")]
    url = f"/api/v1/projects/{project.name}/workloads/deleted/pinapps/web/"
    body = client.get(url).json()
    assert body["manifest"]["spec"]["replicas"] == 1
    kinds = {e["category"] for e in body["history"]}
    assert {"admission", "placement", "scale", "operation", "event", "state"} <= kinds, kinds
    assert any(e["title"] == "Deleted" for e in body["history"])
    scaled = client.get(url, {"category": "scale"}).json()["history"]
    assert [e["title"] for e in scaled] == ["Scaled 3 → 1", "Scaled 2 → 3"]
    future = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert client.get(url, {"since": future}).json()["history"] == []
    assert client.get(url, {"category": "nonsense"}).status_code == 400

    # the page
    page = client.get(f"/workloads/{project.name}/deleted/PinApp/web/")
    assert (
        page.status_code == 200 and "Scaled 3 → 1" in page.content.decode() and "replicas: 1" in page.content.decode()
    )
    logs = re.search(r'href="([^"]+)" data-archive-link', page.content.decode()).group(1).replace("&amp;", "&")
    assert client.get(logs).status_code in (200, 503)  # the archive page answers for the gone workload (no store: 503)
    last = re.search(r'hx-get="([^"]+)"[^>]*data-deleted-last-lines', page.content.decode()).group(1)
    fragment = client.get(last.replace("&amp;", "&"))
    assert fragment.status_code == 200 and "data-last-lines" in fragment.content.decode()  # its last lines, or none
    assert "web" in client.get(f"/workloads/{project.name}/deleted/").content.decode()

    # the CLI
    from pinconsole_sdk import Client
    from pinconsole_sdk.cli import main

    token = create_api_token(user=user, name="cli", days=7)[1]
    out, err = io.StringIO(), io.StringIO()
    cli = Client(live_server.url, token, env={})
    assert main(["history", "pinapp/web", "-n", project.name], out=out, err=err, client=cli) == 0, err.getvalue()
    assert "was deleted at" in out.getvalue() and "Scaled 3 → 1" in out.getvalue()
    out = io.StringIO()
    assert main(["get", "workloads", "--deleted", "-n", project.name], out=out, err=err, client=cli) == 0
    assert "PinApp" in out.getvalue() and "web" in out.getvalue()

    # tenancy: another tenant reads nothing; a viewer reads it
    stranger = get_user_model().objects.create_user("stranger-hist")
    client.force_login(stranger)
    assert client.get(url).status_code == 404
    assert client.get(f"/api/v1/projects/{project.name}/workloads/deleted/").status_code == 404
    assert client.get(f"/workloads/{project.name}/deleted/PinApp/web/").status_code == 404
    Membership.objects.create(project=project, user=stranger, role="viewer")
    assert client.get(url).status_code == 200

    # retention: kept until it, gone after
    assert history.prune()["workloads"] == 0
    history.prune(now=datetime.now(UTC) + timedelta(days=400))
    assert client.get(url).status_code == 404
    assert not HistoryEntry.objects.filter(record__project=project).exists()
