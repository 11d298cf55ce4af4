"""Plain counters and a tiny loopback /metrics endpoint (Prometheus text format, no client library)."""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counters: dict[str, float] = defaultdict(float)
        self.durations: deque[float] = deque(maxlen=10000)
        self.gauges: dict[str, Callable[[], float]] = {}

    def inc(self, name: str, value: float = 1.0) -> None:
        with self._lock:
            self.counters[name] += value

    def observe(self, seconds: float) -> None:
        with self._lock:
            self.durations.append(seconds)
            self.counters["reconcile_seconds_sum"] += seconds

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            values = sorted(self.durations)
            data: dict[str, Any] = dict(self.counters)
        for name, gauge in self.gauges.items():
            data[name] = gauge()
        if values:
            data["reconcile_seconds_p50"] = values[len(values) // 2]
            data["reconcile_seconds_p99"] = values[min(len(values) - 1, int(len(values) * 0.99))]
        return data

    def render(self) -> str:
        return "".join(f"pincompute_operator_{k} {v}\n" for k, v in sorted(self.snapshot().items()))


def serve(metrics: Metrics, port: int) -> ThreadingHTTPServer:
    """Serve /metrics on 127.0.0.1 only; port 0 picks a free port (read ``server.server_port``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = metrics.render().encode()
            self.send_response(200 if self.path.startswith("/metrics") else 404)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
