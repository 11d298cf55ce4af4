"""A deleted workload's page in Chromium: its spec at deletion, its history and its last lines from the real log
archive (the session's VictoriaLogs), loaded after the page; another tenant gets the portal's 404. Screenshot:
deleted-workload.png."""

from __future__ import annotations

import json
import urllib.request
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from devtools.localcp.pods.ship import insert_url
from devtools.waiting import wait_for
from projects.models import Membership
from tests.support.browser import GENEROUS_MS, signed_in
from tests.support.factories import make_project
from workloads.history.models import HistoryEntry, WorkloadRecord

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _archive(url: str, namespace: str, workload: str, lines: list[str], at: datetime) -> None:
    """Lines as the node agent ships them (devtools/localcp/pods/ship.py's records and labels)."""
    labels = {"cluster": "member-a", "namespace": namespace, "project": namespace.removeprefix("proj-"),
              "workload": workload, "kind": "PinApp", "pod": f"{workload}-0", "container": "app",
              "pod_uid": "u-1", "source": "console", "stream": "stdout"}  # fmt: skip
    body = "".join(
        json.dumps({**labels, "_time": (at + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "_msg": line})
        + "\n"
        for i, line in enumerate(lines)
    ).encode()
    headers = {"Content-Type": "application/stream+json"}
    urllib.request.urlopen(urllib.request.Request(insert_url(url), data=body, headers=headers), timeout=30).read()


def _searchable(url: str, word: str) -> bool:
    data = f"query={word}&limit=1".encode()
    return bool(urllib.request.urlopen(f"{url}/select/logsql/query", data=data, timeout=30).read().strip())


def test_a_deleted_workloads_page_shows_its_spec_history_and_last_lines(
    page, live_server, user, other_user, log_archive, screenshot_dir
):
    project = make_project(f"gone-{uuid.uuid4().hex[:6]}")
    Membership.objects.create(project=project, user=user, role="developer")
    name, word = "checkout", f"bye{uuid.uuid4().hex[:8]}"
    started = datetime.now(UTC) - timedelta(hours=1)
    template = {"containers": [{"name": "app", "image": "registry.local/co:7"}]}
    manifest = {"apiVersion": "pincompute.io/v1", "kind": "PinApp", "metadata": {"name": name},
                "spec": {"replicas": 3, "template": template}}  # fmt: skip
    record = WorkloadRecord.objects.create(
        project=project, uid=str(uuid.uuid4()), kind="PinApp", name=name, namespace=project.namespace,
        manifest=manifest, replicas=3, created_at=started, deleted_at=datetime.now(UTC),
    )  # fmt: skip
    for i, (category, title) in enumerate([("admission", "Admitted"), ("scale", "Scaled 2 → 3"), ("state", "Deleted")]):
        HistoryEntry.objects.create(record=record, key=f"k{i}", at=started + timedelta(minutes=i), category=category,
                                    source="test", title=title)  # fmt: skip
    _archive(log_archive.url, project.namespace, name, ["draining connections", f"shutting down {word}"], started)
    wait_for(lambda: _searchable(log_archive.url, word), 60, what="the lines searchable")
    url = f"{live_server.url}/workloads/{project.name}/deleted/PinApp/{name}/"
    page.set_default_timeout(GENEROUS_MS)

    signed_in(page, live_server.url, user)
    page.goto(url)
    page.wait_for_selector(f"[data-last-lines]:has-text('{word}')")
    page.screenshot(path=str(screenshot_dir / "deleted-workload.png"), full_page=True)

    text = page.locator("body").inner_text()
    assert "replicas: 3" in text and "registry.local/co:7" in text
    assert "Scaled 2 → 3" in text and "Deleted" in text
    assert "draining connections" in text
    assert page.locator("[data-archive-link]").count() >= 1

    signed_in(page, live_server.url, other_user)
    answer = page.goto(url)
    assert answer is not None and answer.status == 404
    assert word not in page.content()
