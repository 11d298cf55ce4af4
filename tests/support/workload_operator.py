"""The provisioning fixtures (registered host and members with the platform installed, pools, eager tasks),
shared with the workload page tests through the real apiservers, and the federation operator those tests
(and the browser journey) run, with the host's admission webhook as the dev stack and the chart run it (every
portal write in those tests goes through it): ``operator`` deletes what the test recorded in ``created``, waits
until every shard is gone and removes the webhook's registration."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path

import pytest

from base.errors import NotFound
from clusters import runtime
from devtools.devstack import sync_member_clusters
from devtools.operator_process import WEBHOOK_ARGS, OperatorProcess, unregister_webhook
from devtools.waiting import wait_for
from pincompute.kinds import KINDS
from workloads import host


@pytest.fixture
def created() -> list[tuple[str, str, str]]:
    """(kind, namespace, name) of every workload the test wrote to the host."""
    return []


@pytest.fixture
def operator(federation, local_control_plane, tmp_path, created):
    """The federation controller on the registry's clusters, once the host holds a MemberCluster per member.
    Afterwards every workload the test made is deleted and its shards are gone (later tests place afresh)."""
    sync_member_clusters()
    lease = f"fed-{uuid.uuid4().hex[:6]}"
    kubeconfig = Path(local_control_plane.kubeconfig_path)
    proc = OperatorProcess(kubeconfig, tmp_path, "workloads-fed", lease, *WEBHOOK_ARGS, federation=True)
    proc.start()
    wait_for(lambda: proc.metrics().get("leading") == 1.0, 60, what="federation operator leading")
    try:
        yield proc
        _cleaned_up(proc, created)
    finally:
        if proc.proc is not None and proc.proc.poll() is None:
            proc.terminate()
        unregister_webhook(kubeconfig)  # with failure policy Fail, a webhook nobody serves refuses later writes


def _cleaned_up(proc: OperatorProcess, created: list[tuple[str, str, str]]) -> None:
    for kind, namespace, name in created:
        with contextlib.suppress(NotFound):
            host.delete(kind, namespace, name)

    def shards_left() -> list[str]:
        return [
            f"{cluster}:{kind}/{name}"
            for kind, namespace, name in created
            for cluster, cache in runtime.member_caches().items()
            if cache.get(KINDS[kind].plural, namespace, name)
        ]

    wait_for(lambda: not shards_left(), 120, interval=0.5, what="every shard removed")
    assert proc.terminate() == 0, proc.log()
