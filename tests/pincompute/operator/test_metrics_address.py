"""The operator's --metrics-bind-address: parsed as host:port, served there (IPv4, IPv6, every address)."""

from __future__ import annotations

import urllib.request

import pytest

from pincompute.operator.app import main
from pincompute.operator.metrics import Metrics, parse_address, serve


@pytest.mark.parametrize(
    ("given", "parsed"),
    [("0.0.0.0:9090", ("0.0.0.0", 9090)), (":9090", ("0.0.0.0", 9090)), ("[::1]:9090", ("::1", 9090))],
)
def test_an_address_is_host_and_port(given, parsed):
    assert parse_address(given) == parsed


@pytest.mark.parametrize("given", ["9090", "host:", "host:port", "host:70000"])
def test_anything_else_is_refused(given):
    with pytest.raises(ValueError, match="host:port"):
        parse_address(given)


def test_the_flag_is_checked_before_anything_starts():
    with pytest.raises(SystemExit, match="--metrics-bind-address"):
        main(["--kubeconfig", "/nonexistent", "--context", "c", "--metrics-bind-address", "nope"])


@pytest.mark.parametrize("host", ["127.0.0.1", "::1"])
def test_metrics_are_served_on_the_address(host):
    metrics = Metrics()
    metrics.finished("member", "PinPod", "success", 0.02)
    server = serve(metrics, host, 0)
    try:
        url_host = f"[{host}]" if ":" in host else host
        with urllib.request.urlopen(f"http://{url_host}:{server.server_port}/metrics", timeout=5) as response:
            text = response.read().decode()
    finally:
        server.shutdown()
    assert 'pincompute_operator_reconciles_total{controller="member",kind="PinPod",result="success"} 1.0' in text
    assert "# TYPE pincompute_operator_reconcile_duration_seconds histogram" in text
