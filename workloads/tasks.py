"""The one periodic pass the portal makes over the federation's decisions: telling people (``workloads.notices``)."""

from __future__ import annotations

from celery import shared_task

from workloads.notices import tell_workload_changes


@shared_task(name="workloads.tell_changes")
def tell_changes() -> int:
    """Idempotent: a workload already told about is not told again (``notifications.services.notify``'s key)."""
    return tell_workload_changes()
