"""A change that landed on the host is not answered as an error because its audit row could not be written."""

from __future__ import annotations

import json
import logging

import pytest
from django.db import OperationalError

from workloads import submission


class _Project:
    name = "ads"


class _Actor:
    username = "dev1"


def test_the_database_failing_after_the_write_logs_the_whole_row_instead_of_raising(monkeypatch, caplog):
    def down(*args, **kwargs):
        raise OperationalError("terminating connection due to unexpected postmaster exit")

    monkeypatch.setattr(submission.audit, "record", down)
    monkeypatch.setattr(submission.host, "host_cluster", lambda: type("C", (), {"name": "host"})())

    with caplog.at_level(logging.ERROR, logger="workloads.submission"):
        submission.record(
            _Project(), "workload.scale", "PinApp", "web", actor=_Actor(), before={"replicas": 2}, after={"replicas": 3}
        )

    [line] = [r.getMessage() for r in caplog.records if "audit row not written" in r.getMessage()]
    row = json.loads(line.split("the change was applied: ", 1)[1])
    assert row == {
        "action": "workload.scale", "actor": "dev1", "project": "ads", "kind": "PinApp", "name": "web",
        "before": {"replicas": 2}, "after": {"replicas": 3},
    }  # fmt: skip


def test_any_other_audit_failure_still_raises(monkeypatch):
    monkeypatch.setattr(submission.audit, "record", lambda *a, **k: (_ for _ in ()).throw(ValueError("bug")))
    monkeypatch.setattr(submission.host, "host_cluster", lambda: type("C", (), {"name": "host"})())

    with pytest.raises(ValueError):
        submission.record(_Project(), "workload.scale", "PinApp", "web", actor=_Actor())
