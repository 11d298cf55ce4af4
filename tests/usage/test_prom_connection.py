"""The portal's queries to Prometheus share one kept-alive connection per process, and a restarted Prometheus is
answered again on the next query (a connection it closed is not reused)."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator

import pytest

from devtools.localcp.prometheus import Prometheus
from tests.harness.services import free_port
from usage import prom

pytestmark = pytest.mark.integration


@pytest.fixture
def private_prometheus(tmp_path, settings) -> Iterator[Prometheus]:
    """A Prometheus of this test's own (it is restarted), with each query answered by it, not by a cache."""
    server = Prometheus(tmp_path / "prometheus", free_port(), scrape_seconds=3600)
    server.start()
    settings.PROMETHEUS_URL, settings.PROMETHEUS_SCRAPE_SECONDS = server.url, 3600
    try:
        yield server
    finally:
        server.stop()


def accepted(server: Prometheus) -> int:
    """Connections Prometheus' listener accepted, this read's own included."""
    with urllib.request.urlopen(f"{server.url}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return int(float(re.search(r'net_conntrack_listener_conn_accepted_total\{listener_name="http"\} (\S+)', text)[1]))


def test_queries_share_one_connection(private_prometheus):
    before = accepted(private_prometheus)

    answers = [prom.query(f"vector({i})") for i in range(5)]

    assert [series[0].points[0][1] for series in answers] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert accepted(private_prometheus) - before == 2  # the queries' one connection, and the second read's


def test_a_restarted_prometheus_is_answered_on_the_next_query(private_prometheus):
    assert prom.query("vector(1)")[0].points[0][1] == 1.0

    private_prometheus.stop()
    private_prometheus.start()

    assert prom.query("vector(2)")[0].points[0][1] == 2.0
