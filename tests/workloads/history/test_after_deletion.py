"""A deleted workload's pods keep making Events after the host object is gone (Killing, their last state): the
recorder keeps recording those for ``HISTORY_AFTER_DELETION_SECONDS``, and not after (the caches the web reads)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from projects.models import Project
from tests.support.fake_host import event
from tests.support.fakes import FilledCache
from tests.support.projects import caches  # noqa: F401
from workloads.history.models import HistoryEntry, WorkloadRecord
from workloads.history.recorder import Recorder

pytestmark = pytest.mark.django_db


def _deleted(project: Project, name: str, ago: timedelta) -> WorkloadRecord:
    now = datetime.now(UTC)
    return WorkloadRecord.objects.create(project=project, uid=f"uid-{name}", kind="PinApp", name=name,
                                         namespace=project.namespace, created_at=now - timedelta(hours=1),
                                         deleted_at=now - ago)  # fmt: skip


def test_a_recently_deleted_workloads_pod_events_are_still_recorded(caches, settings):  # noqa: F811
    settings.HISTORY_AFTER_DELETION_SECONDS = 600
    project = Project.objects.create(name="ads", team="t", cost_center="CC")
    recent, old = _deleted(project, "web", timedelta(minutes=1)), _deleted(project, "api", timedelta(minutes=20))
    at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    caches["host"] = FilledCache({"pinapps": []})  # synced, the workloads gone
    caches["member-a"] = FilledCache(
        {"events": [event("e1", "Pod", "web-5d8f-x1", "Killing", at), event("e2", "Pod", "api-7c9-z2", "Killing", at)]}
    )

    Recorder().pass_once()
    Recorder().pass_once()  # a restarted recorder: nothing twice

    assert list(HistoryEntry.objects.filter(record=recent).values_list("title", "source")) == [("Killing", "member-a")]
    assert not HistoryEntry.objects.filter(record=old).exists()
