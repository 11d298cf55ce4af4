"""The one periodic pass the portal makes over the federation's decisions: telling people (``workloads.notices``:
preempted; ``workloads.state_notices``: waiting too long, degraded, failed, crash-looping, a tier near its grant)."""

from __future__ import annotations

from celery import shared_task

from workloads.notices import tell_workload_changes
from workloads.state_notices import tell_state_changes


@shared_task(name="workloads.tell_changes")
def tell_changes() -> int:
    """Idempotent: a workload already told about is not told again (``notifications.services.notify``'s key)."""
    return tell_workload_changes() + tell_state_changes()
