"""The operator's /healthz and /readyz (``pincompute.operator.health``), on a real operator object: liveness fails for
a watch that crashed and was not restarted and for a dead reconcile worker, never while draining; a standby replica
is ready, a stopping one is not. The leader's readiness on real watches: ``test_operator_metrics.py``."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from devtools.waiting import wait_for
from pincompute.kube.listwatch import ListWatch
from pincompute.kube.store import Store
from pincompute.operator.cluster import Key
from pincompute.operator.controller import Operator, Options
from pincompute.operator.health import RESTART_GRACE, liveness
from pincompute.operator.metrics import Metrics, serve
from pincompute.runtime import load_profile
from tests.support.kubeio import fake_cluster


def operator(clusters=None, workers=1) -> Operator:
    return Operator(clusters or {}, load_profile(), threading.Event(), options=Options(workers=workers))


def probe(server, path: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}{path}", timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def crashed_watch() -> ListWatch:
    """A real list-watch whose loop meets a bug (its API factory raises): it ends with ``crashed`` set."""

    def broken_api():
        raise RuntimeError("a bug in the watch loop")

    watch = ListWatch(broken_api, Store(), "Pod", "/api/v1/pods", name="member-a-pods")
    watch.start()
    wait_for(lambda: watch.crashed, 10, what="the watch crashed")
    return watch


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_crashed_watch_fails_liveness_once_it_was_not_restarted_in_time():
    cluster = fake_cluster()
    op = operator({"member-a": cluster})
    cluster.watches["Pod"] = crashed_watch()

    assert liveness(op) == []  # the discovery loop restarts it within its period
    late = liveness(op, now=lambda: time.time() + RESTART_GRACE + 1)

    assert len(late) == 1 and late[0].startswith("watch member-a/Pod crashed")
    assert "a bug in the watch loop" in late[0]
    op.stop.set()
    assert liveness(op, now=lambda: time.time() + RESTART_GRACE + 1) == []  # draining: never restarted for it


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_reconcile_worker_killed_by_a_bug_fails_liveness_over_http():
    op = operator(workers=2)
    runner = threading.Thread(target=op.run, daemon=True)
    runner.start()
    wait_for(lambda: op.started, 10, what="the operator started")
    server = serve(Metrics(), "127.0.0.1", 0, probes=op)
    try:
        assert probe(server, "/healthz") == (200, {"status": "ok", "problems": []})

        op.enqueue(Key("no-such-cluster", "PinPod", "ns", "x"))  # a KeyError escapes the reconcile: a bug
        wait_for(lambda: op.dead_workers(), 10, what="a dead worker")

        status, body = probe(server, "/healthz")
        # whichever of the two idle workers took the key died (the queue hands it to either)
        assert status == 503 and body["problems"] in (
            ["reconcile worker worker-0 died"],
            ["reconcile worker worker-1 died"],
        )
        assert probe(server, "/readyz")[0] == 200  # still serving its other worker; a restart is liveness' call
    finally:
        op.stop.set()
        runner.join(10)
        server.shutdown()


def test_a_standby_is_ready_a_leader_waits_for_its_watches_and_a_stopping_replica_is_not_ready():
    cluster = fake_cluster()
    op = operator({"member-a": cluster})
    cluster.watches["Pod"] = ListWatch(lambda: None, Store(), "Pod", "/api/v1/pods", name="member-a-pods")
    server = serve(Metrics(), "127.0.0.1", 0, probes=op)
    try:
        assert probe(server, "/readyz") == (200, {"status": "ok", "problems": []})  # standby: not started

        op._started = True  # leading: its informers were started (run() does this once it holds the Lease)
        assert probe(server, "/readyz") == (503, {"status": "unavailable",
                                                   "problems": ["watch member-a/Pod has not listed yet"]})  # fmt: skip
        cluster.watches["Pod"].synced.set()
        assert probe(server, "/readyz")[0] == 200

        op.stop.set()
        assert probe(server, "/readyz") == (503, {"status": "unavailable", "problems": ["shutting down"]})
        assert probe(server, "/healthz")[0] == 200
        assert (
            "pincompute_operator_"
            in urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=5).read().decode()
        )
    finally:
        server.shutdown()
