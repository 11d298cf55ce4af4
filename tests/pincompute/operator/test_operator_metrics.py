"""The operator's /metrics, from a real operator subprocess on the local control plane, on the address given by
``--metrics-bind-address``, parsed with prometheus_client's parser: HELP/TYPE for every family, and counters that
move when a real PinPod is reconciled."""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request
import uuid

import pytest
from kubernetes import client

from devtools.localcp.procs import free_port
from devtools.operator_process import OperatorProcess, install_crds
from devtools.waiting import wait_for
from tests.support.metrics import families, label_sets, value
from tests.support.operator import as_shard, create_cr, is_ready

pytestmark = [pytest.mark.integration, pytest.mark.cluster, pytest.mark.timeout(240)]
NS = f"pc-metrics-{uuid.uuid4().hex[:6]}"
POD = as_shard(
    {
        "apiVersion": "pincompute.io/v1",
        "kind": "PinPod",
        "metadata": {"name": "metered", "namespace": NS},
        "spec": {
            "project": "search",
            "team": "discovery",
            "tier": "OnDemand",
            "containers": [{"name": "app", "image": "registry.local/app:1", "resources": {"requests": {"cpu": "10m"}}}],
        },
    }
)


@pytest.fixture(scope="module")
def operator(local_control_plane, member_api_clients, tmp_path_factory):
    install_crds(str(local_control_plane.kubeconfig_path))
    api = member_api_clients["member-a"]
    client.CoreV1Api(api).create_namespace({"metadata": {"name": NS}})
    port = free_port()
    proc = OperatorProcess(
        local_control_plane.kubeconfig_path,
        tmp_path_factory.mktemp("op-metrics"),
        "op-metrics",
        f"metrics-{uuid.uuid4().hex[:8]}",
        "--metrics-bind-address",
        f"0.0.0.0:{port}",
    ).start()
    url = f"http://127.0.0.1:{port}/metrics"
    wait_for(lambda: value(scrape_or_empty(url), "pincompute_operator_leader") == 1.0, 60, what="operator leading")
    yield url, api
    assert proc.terminate() == 0, proc.log()
    client.CoreV1Api(api).delete_namespace(NS)


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        return response.read().decode()


def scrape_or_empty(url: str) -> dict:
    try:
        return families(scrape(url))
    except OSError:
        return {}


def test_every_family_has_help_and_type_and_its_labels(operator):
    url, _ = operator
    text = scrape(url)

    found = families(text)
    types = {name: found[name].type for name in found if name.startswith("pincompute_operator_")}
    assert types == {
        "pincompute_operator_reconciles": "counter",
        "pincompute_operator_reconcile_duration_seconds": "histogram",
        "pincompute_operator_retries": "counter",
        "pincompute_operator_writes": "counter",
        "pincompute_operator_resyncs": "counter",
        "pincompute_operator_reconcile_causes": "counter",
        "pincompute_operator_events_ignored": "counter",
        "pincompute_operator_queue_depth": "gauge",
        "pincompute_operator_leader": "gauge",
    }
    for name, kind in types.items():
        exposed = f"{name}_total" if kind == "counter" else name
        assert f"# HELP {exposed} " in text and f"# TYPE {exposed} {kind}" in text
    assert value(found, "pincompute_operator_leader") == 1.0
    assert label_sets(found, "pincompute_operator_queue_depth") == {("queue", "state")}
    assert {s.labels["queue"] for s in found["pincompute_operator_queue_depth"].samples} == {"member", "federation"}


def test_the_leader_is_alive_and_ready_on_the_same_address(operator):
    url, _ = operator
    base = url.removesuffix("/metrics")

    def answer(path: str) -> tuple[int, dict]:
        try:
            with urllib.request.urlopen(base + path, timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read())

    status, body = answer("/healthz")
    assert (status, body) == (200, {"status": "ok", "problems": []}), body
    # Leading, so ready only once every watch it started has listed (they have, or it would not have reconciled).
    wait_for(lambda: answer("/readyz") == (200, {"status": "ok", "problems": []}), 60, what="operator ready")


def test_a_reconciled_pinpod_moves_the_counters_and_the_histogram(operator):
    url, api = operator
    labels = {"controller": "member", "kind": "PinPod", "result": "success"}
    before = families(scrape(url))

    create_cr(api, copy.deepcopy(POD))
    wait_for(lambda: is_ready(api, "PinPod", NS, "metered"), 90, what="PinPod Ready")

    after = families(scrape(url))
    reconciles = "pincompute_operator_reconciles_total"
    assert value(after, reconciles, **labels) > value(before, reconciles, **labels)
    count = "pincompute_operator_reconcile_duration_seconds_count"
    assert value(after, count, **labels) > value(before, count, **labels)
    assert label_sets(after, "pincompute_operator_reconcile_duration_seconds") >= {
        ("controller", "kind", "le", "result"),
        ("controller", "kind", "result"),
    }
    assert value(after, "pincompute_operator_writes_total") > value(before, "pincompute_operator_writes_total")
    # what queued them: the CR's creation among them
    causes = "pincompute_operator_reconcile_causes_total"
    assert value(after, causes, controller="member", cause="cr_change") > value(
        before, causes, controller="member", cause="cr_change"
    )
