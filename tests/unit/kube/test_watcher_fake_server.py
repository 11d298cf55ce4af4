"""The watcher's LIST/WATCH/410 loop against a tiny in-process HTTP server speaking the watch protocol.

A young real apiserver replays its watch cache instead of answering 410, so the Gone paths (HTTP 410
on open, ERROR event with code 410) are pinned here deterministically.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest
from kubernetes import client as k8s

from clusters.kube.client import ClientPool, ClusterTarget, TimedApiClient
from clusters.kube.resources import ResourceSpec
from clusters.kube.store import Store
from clusters.kube.watcher import ResourceWatcher


class FakeApiserver:
    """LIST returns the pods at rv 10; each WATCH consumes one scripted reply."""

    def __init__(self, watch_script):
        self.pods = {"a": 1}
        self.watch_script = list(watch_script)
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                q = parse_qs(urlparse(self.path).query)
                fake.requests.append(("watch" if "watch" in q else "list", q.get("resourceVersion", [""])[0]))
                if "watch" not in q:
                    items = [{"metadata": {"namespace": "ns", "name": n, "resourceVersion": "10"}} for n in fake.pods]
                    self._send(200, json.dumps({"kind": "PodList", "apiVersion": "v1", "items": items,
                                                "metadata": {"resourceVersion": "10"}}).encode())
                    return
                reply = fake.watch_script.pop(0) if fake.watch_script else ("hang", None)
                if reply[0] == "status":
                    self._send(reply[1], json.dumps({"kind": "Status", "code": reply[1]}).encode())
                elif reply[0] == "events":
                    self._send(200, b"".join(json.dumps(e).encode() + b"\n" for e in reply[1]))
                else:
                    self._send(200, b"", hang=True)

            def _send(self, status, body, hang=False):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if hang:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    time.sleep(3)
                    return
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def watcher_for(fake):
    cfg = k8s.Configuration()
    cfg.host, cfg.retries = fake.url, False
    pool = ClientPool([ClusterTarget("fake", None, None)], factory=lambda t, timeout: TimedApiClient(cfg, timeout))
    store = Store()
    w = ResourceWatcher(pool, "fake", ResourceSpec("pods", "/api/v1/pods", True), store,
                        watch_timeout=1, backoff_base=0.01, backoff_cap=0.05)
    return w, store


def wait(check, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.01)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("gone", [
    ("status", 410),
    ("events", [{"type": "ERROR", "object": {"kind": "Status", "code": 410, "message": "too old"}}]),
])
def test_gone_relists_and_then_watches_from_the_new_list(gone):
    added = {"type": "ADDED", "object": {"metadata": {"namespace": "ns", "name": "b", "resourceVersion": "12"}}}
    bookmark = {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "15"}}}
    fake = FakeApiserver([("events", [added, bookmark]), gone])
    w, store = watcher_for(fake)
    w.start()
    try:
        wait(lambda: w.stats().relists == 1 and w.stats().lists == 2)
        assert fake.requests[:4] == [("list", ""), ("watch", "10"), ("watch", "15"), ("list", "")]
        assert store.get("pods", "ns", "a") is not None
        error = w.stats().last_error or ""
        assert "Gone" in error or "410" in error
    finally:
        w.stop()
        assert w.join(5)


@pytest.mark.timeout(20)
def test_server_errors_back_off_and_resume_without_relisting():
    fake = FakeApiserver([("status", 503), ("status", 503)])
    w, _ = watcher_for(fake)
    w.start()
    try:
        wait(lambda: len([r for r in fake.requests if r[0] == "watch"]) >= 3)
        stats = w.stats()
        assert stats.lists == 1 and stats.relists == 0 and stats.reconnects >= 2
    finally:
        w.stop()
        assert w.join(5)
