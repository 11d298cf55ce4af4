"""The operator's metrics in Prometheus' exposition format (prometheus-client), served on a configurable address.

Counters and the latency histogram are updated by the workers; queue depth and leadership are read when
scraped (``_Live``), so nothing polls. Each ``Metrics`` has its own registry: tests build several operators in one
process, and the process-wide default registry would refuse the second set of names.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, make_wsgi_app
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from pincompute.operator.health import with_probes

if TYPE_CHECKING:
    from pincompute.operator.controller import Operator

PREFIX = "pincompute_operator"
# Reconciles take milliseconds (a diff that writes nothing) to seconds (a burst of server-side applies).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
QUEUE_STATES = ("ready", "processing", "waiting")
Depth = Callable[[], tuple[int, int, int]]
disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series: the names below are all there is


class _Live(Collector):
    """Queue depth per queue and state, and leadership: read from the operator at scrape time."""

    def __init__(self) -> None:
        self.queues: dict[str, Depth] = {}
        self.leading: Callable[[], bool] = lambda: False

    def collect(self) -> Iterable[Metric]:
        depth = GaugeMetricFamily(
            f"{PREFIX}_queue_depth",
            "Keys in a work queue by state (waiting: delayed or backing off)",
            labels=["queue", "state"],
        )
        for queue, read in sorted(self.queues.items()):
            for state, value in zip(QUEUE_STATES, read(), strict=True):
                depth.add_metric([queue, state], value)
        yield depth
        yield GaugeMetricFamily(
            f"{PREFIX}_leader", "1 while this replica holds the lease and reconciles", 1.0 if self.leading() else 0.0
        )


class Metrics:
    """Reconciles by controller (member | federation), kind and result; their latency; retries; writes."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.live = _Live()
        self.registry.register(self.live)
        labels = ["controller", "kind", "result"]
        self.reconciles = Counter(
            f"{PREFIX}_reconciles", "Reconciles finished, by result", labels, registry=self.registry
        )
        self.latency = Histogram(
            f"{PREFIX}_reconcile_duration_seconds",
            "Time one reconcile took, conflict re-reads included",
            labels,
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.retries = Counter(
            f"{PREFIX}_retries",
            "Retries: conflict (re-read and reconcile again at once) or backoff (requeued after a delay)",
            ["controller", "kind", "reason"],
            registry=self.registry,
        )
        self.writes = Counter(
            f"{PREFIX}_writes", "Objects written (applied, patched or deleted)", registry=self.registry
        )
        self.resyncs = Counter(f"{PREFIX}_resyncs", "Periodic requeues of every key", registry=self.registry)
        self.causes = Counter(
            f"{PREFIX}_reconcile_causes",
            "Reconciles by what queued them (admission: a project's admission key, counted apart from workloads)",
            ["controller", "cause"],
            registry=self.registry,
        )
        self.ignored = Counter(
            f"{PREFIX}_events_ignored",
            "Watch events that queued nothing, by why (our own write's echo, a shard status that changed nothing)",
            ["controller", "cause"],
            registry=self.registry,
        )

    def finished(self, controller: str, kind: str, result: str, seconds: float) -> None:
        self.reconciles.labels(controller, kind, result).inc()
        self.latency.labels(controller, kind, result).observe(seconds)

    def caused(self, controller: str, cause: str) -> None:
        self.causes.labels(controller, cause).inc()

    def retried(self, controller: str, kind: str, reason: str) -> None:
        self.retries.labels(controller, kind, reason).inc()

    def count(self, name: str, labels: dict[str, str] | None = None) -> float:
        """The current value of one sample (0 when absent): for tests and the shutdown log line."""
        return self.registry.get_sample_value(name, labels or {}) or 0.0

    def snapshot(self) -> dict[str, float]:
        """Totals across labels, for the log line at shutdown."""
        totals: dict[str, float] = {}
        for family in self.registry.collect():
            if family.type in ("counter", "gauge"):
                for sample in family.samples:
                    if not sample.name.endswith("_created"):
                        key = sample.name.removeprefix(f"{PREFIX}_")
                        totals[key] = totals.get(key, 0.0) + sample.value
        return totals


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


class _Server(ThreadingHTTPServer, WSGIServer):
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


def parse_address(value: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:9090`` for IPv6; ``:9090`` binds every address); ValueError otherwise."""
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"expected host:port, got {value!r}")
    return host.strip("[]") or "0.0.0.0", int(port)  # noqa: S104 - ":PORT" asks for every address


def serve(metrics: Metrics, host: str, port: int, *, probes: Operator | None = None) -> WSGIServer:
    """Serve /metrics on ``host:port`` in a daemon thread; port 0 picks a free port (``server.server_port``). With
    ``probes``, also that operator's /healthz and /readyz (``health``)."""
    server_class = _Server6 if ":" in host else _Server
    app = make_wsgi_app(metrics.registry)
    if probes is not None:
        app = with_probes(app, probes)
    server = make_server(host, port, app, server_class, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
