"""The one list-watch (pincompute.kube.listwatch) against a tiny in-process HTTP server speaking the
watch protocol, wired both ways it is used: the portal cache's (breaker gate, slimmed store) and the
operator's (direct gate, label selector, event handler).

A young real apiserver replays its watch cache instead of answering 410, so the Gone paths (HTTP 410
on open, ERROR event with code 410) are pinned here deterministically, as are frames cut mid-stream,
handler crashes and a prompt stop of a watch blocked on a quiet connection.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import pytest
from kubernetes import client as k8s
from kubernetes.config.config_exception import ConfigException

from clusters.kube.breaker import CircuitBreaker
from clusters.kube.cache import BreakerGate, cluster_store
from clusters.kube.client import ClientPool, ClusterTarget
from pincompute.errors import TemporaryError
from pincompute.kube.client import TimedApiClient
from pincompute.kube.listwatch import ListWatch
from pincompute.kube.store import Store
from pincompute.operator.cluster import ClusterRuntime
from pincompute.operator.kubeio import NATIVE


def pod(name, rv, **labels):
    return {
        "metadata": {
            "namespace": "ns",
            "name": name,
            "resourceVersion": rv,
            "labels": labels,
            "managedFields": [{"manager": "kubectl"}],
        }
    }


class FakeApiserver:
    """LIST returns ``pods`` at rv 10; each WATCH consumes one scripted reply (then hangs, as a quiet watch)."""

    def __init__(self, watch_script, pods=None):
        self.pods = pods if pods is not None else {"a": pod("a", "10")}
        self.watch_script = list(watch_script)
        self.requests = []
        self.queries = []
        self.on_list = lambda query: None  # called on every LIST request (a page), before its answer
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                q = parse_qs(urlparse(self.path).query)
                fake.queries.append(q)
                fake.requests.append(("watch" if "watch" in q else "list", q.get("resourceVersion", [""])[0]))
                if "watch" not in q:
                    fake.on_list(q)
                    items = list(fake.pods.values())
                    meta = {"resourceVersion": "10"}
                    if "limit" in q:  # pages of `limit`, the continue token the next one's start
                        start, limit = int(q.get("continue", ["0"])[0]), int(q["limit"][0])
                        items = items[start : start + limit]
                        if start + limit < len(fake.pods):
                            meta["continue"] = str(start + limit)
                    self._send(
                        200,
                        json.dumps({"kind": "PodList", "apiVersion": "v1", "items": items, "metadata": meta}).encode(),
                    )
                    return
                reply = fake.watch_script.pop(0) if fake.watch_script else ("hang", None)
                if reply[0] == "status":
                    self._send(reply[1], json.dumps({"kind": "Status", "code": reply[1]}).encode())
                elif reply[0] == "events":
                    self._send(200, b"".join(json.dumps(e).encode() + b"\n" for e in reply[1]))
                elif reply[0] == "cut":  # whole frames, then half a frame, then the connection drops
                    frame = json.dumps({"type": "ADDED", "object": pod("lost", "99")}).encode() + b"\n"
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Transfer-Encoding", "chunked")  # as the apiserver streams a watch
                    self.end_headers()
                    for data in [json.dumps(e).encode() + b"\n" for e in reply[1]] + [frame[: len(frame) // 2]]:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    self.wfile.flush()
                    self.close_connection = True  # no terminating chunk
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

    def api(self):
        cfg = k8s.Configuration()
        cfg.host, cfg.retries = self.url, False
        return TimedApiClient(cfg, (3, 10))

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers():
    started = []

    def start(script, pods=None):
        fake = FakeApiserver(script, pods)
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.close()


def portal_watch(fake, breaker=None, store=None, page_size=500):
    """As WatchCache wires it: the pool's breaker and retry as the gate, a slimming store."""
    pool = ClientPool(
        [ClusterTarget("fake", None, None)],
        factory=lambda t, timeout: fake.api(),
        breaker_factory=breaker or CircuitBreaker,
    )
    store = store if store is not None else cluster_store()
    w = ListWatch(
        lambda: pool.api("fake"),
        store,
        "pods",
        "/api/v1/pods",
        name="fake-pods",
        gate=BreakerGate(pool, "fake"),
        timeout=pool.timeout,
        watch_timeout=1,
        backoff_base=0.01,
        backoff_cap=0.05,
        page_size=page_size,
    )
    return w, store


def operator_watch(fake, events, selector="app.kubernetes.io/managed-by=pincompute"):
    """As the operator wires it: the direct gate, a full-object store, a label selector and a handler."""
    api = fake.api()
    store = Store()
    w = ListWatch(
        lambda: api,
        store,
        "Pod",
        "/api/v1/pods",
        name="fake-Pod",
        label_selector=selector,
        on_event=lambda t, o: events.append((t, o["metadata"]["name"])),
        watch_timeout=1,
        backoff_base=0.01,
        backoff_cap=0.05,
    )
    return w, store


def wait(check, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def stopped(w):
    w.stop()
    return w.join(5)


GONE = [
    ("status", 410),
    ("events", [{"type": "ERROR", "object": {"kind": "Status", "code": 410, "message": "too old"}}]),
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("gone", GONE)
def test_gone_relists_and_then_watches_from_the_new_list(servers, gone):
    added = {"type": "ADDED", "object": pod("b", "12")}
    bookmark = {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "15"}}}
    fake = servers([("events", [added, bookmark]), gone])
    w, store = portal_watch(fake)
    w.start()
    try:
        wait(lambda: w.stats().relists == 1 and w.stats().lists == 2)
        assert fake.requests[:4] == [("list", ""), ("watch", "10"), ("watch", "15"), ("list", "")]
        assert store.get("pods", "ns", "a") is not None
        assert "managedFields" not in store.get("pods", "ns", "a")["metadata"]  # the portal slims
        error = w.stats().last_error or ""
        assert "Gone" in error or "410" in error
    finally:
        assert stopped(w)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("gone", GONE)
def test_the_operator_wiring_relists_on_gone_too_and_tells_its_handler_what_vanished(servers, gone):
    """The operator's old informer re-watched a stale resourceVersion forever on HTTP 410."""
    fake = servers(
        [("events", [{"type": "ADDED", "object": pod("b", "12")}]), gone],
        pods={"a": pod("a", "10"), "c": pod("c", "10")},
    )
    events = []
    w, store = operator_watch(fake, events)
    w.start()
    try:
        wait(lambda: ("ADDED", "b") in events)
        del fake.pods["c"]  # deleted while the watch was down: only the relist can tell
        wait(lambda: w.stats().lists == 2)
        wait(lambda: events.count(("ADDED", "a")) == 2)
        assert events[:3] == [("ADDED", "a"), ("ADDED", "c"), ("ADDED", "b")]
        assert set(events[3:]) == {("DELETED", "b"), ("DELETED", "c"), ("ADDED", "a")}
        assert store.get("Pod", "ns", "c") is None and store.get("Pod", "ns", "b") is None
        assert "managedFields" in store.get("Pod", "ns", "a")["metadata"]  # the operator's SSA plan reads it
        assert store.get("Pod", "ns", "a")["kind"] == "Pod"  # list items get their kind back
        assert {q["labelSelector"][0] for q in fake.queries} == {"app.kubernetes.io/managed-by=pincompute"}
    finally:
        assert stopped(w)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("gone", GONE)
def test_on_listed_runs_after_each_list_and_relist_filled_the_store(servers, gone):
    fake = servers([gone])
    listed = []
    w, store = portal_watch(fake)
    w.on_listed = lambda: listed.append(store.count("pods"))
    w.start()
    try:
        wait(lambda: len(listed) == 2)
        assert listed == [1, 1] and w.stats().relists == 1
    finally:
        assert stopped(w)


@pytest.mark.timeout(20)
def test_the_portal_caches_freeze_the_heap_once_their_lists_are_in(servers, monkeypatch):
    import gc

    from clusters.kube.cache import WatchCache
    from clusters.kube.heap import FREEZER
    from clusters.kube.resources import ResourceSpec

    fake = servers([])
    monkeypatch.setattr(FREEZER, "enabled", True)  # off in the suite's processes (tests/harness/plugin.py)
    monkeypatch.setattr(FREEZER, "delay", 0.0)
    before = FREEZER.freezes
    pool = ClientPool([ClusterTarget("fake", None, None)], factory=lambda t, timeout: fake.api())
    cache = WatchCache(pool, "fake", [ResourceSpec("pods", "/api/v1/pods", True)], discovery_interval=3600)
    cache.start()
    try:
        wait(lambda: FREEZER.freezes > before)
        assert cache.synced and gc.get_freeze_count() > 0
    finally:
        cache.stop()
        gc.unfreeze()


@pytest.mark.timeout(20)
def test_server_errors_back_off_and_resume_without_relisting(servers):
    fake = servers([("status", 503), ("status", 503)])
    w, _ = portal_watch(fake)
    w.start()
    try:
        wait(lambda: len([r for r in fake.requests if r[0] == "watch"]) >= 3)
        stats = w.stats()
        assert stats.lists == 1 and stats.relists == 0 and stats.reconnects >= 2
    finally:
        assert stopped(w)


@pytest.mark.timeout(20)
def test_a_frame_cut_mid_stream_reconnects_from_the_last_event_without_relisting(servers):
    fake = servers([("cut", [{"type": "MODIFIED", "object": pod("a", "11")}])])
    events = []
    w, store = operator_watch(fake, events)
    w.start()
    try:
        wait(lambda: len([r for r in fake.requests if r[0] == "watch"]) >= 2)
        stats = w.stats()
        assert fake.requests[:3] == [("list", ""), ("watch", "10"), ("watch", "11")]
        assert stats.lists == 1 and stats.relists == 0 and stats.reconnects == 1 and not w.crashed
        assert store.get("Pod", "ns", "lost") is None and ("ADDED", "lost") not in events
        assert "ProtocolError" in (stats.last_error or "")
    finally:
        assert stopped(w)


@pytest.mark.timeout(20)
def test_a_kubeconfig_not_loadable_yet_is_retried_and_shown_not_a_crash(servers):
    """A cluster registered before its kubeconfig is readable (or mid-edit): the watch says why and keeps trying;
    once the file loads it lists as usual. (A dead thread here left a cluster's cache frozen until a restart.)"""
    fake = servers([])
    ready = threading.Event()

    def factory(target, timeout):
        if not ready.is_set():
            raise ConfigException("Invalid kube-config file. No configuration found.")
        return fake.api()

    pool = ClientPool([ClusterTarget("fake", None, None)], factory=factory)
    w = ListWatch(lambda: pool.api("fake"), cluster_store(), "pods", "/api/v1/pods", name="fake-pods",
                  watch_timeout=1, backoff_base=0.01, backoff_cap=0.05)  # fmt: skip
    w.start()
    try:
        wait(lambda: "No configuration found" in (w.stats().last_error or ""))
        assert not w.crashed and fake.requests == []
        ready.set()
        wait(lambda: w.synced.is_set())
        assert not w.crashed and fake.requests[0] == ("list", "")
    finally:
        assert stopped(w)


@pytest.mark.timeout(20)
def test_stop_unblocks_a_quiet_watch_at_once(servers):
    fake = servers([])  # every watch hangs without a byte, as a quiet collection does
    w, _ = portal_watch(fake)
    w.start()
    wait(lambda: w.synced.is_set() and len(fake.requests) >= 2)
    time.sleep(0.1)
    t0 = time.monotonic()
    w.stop()
    assert w.join(2) and time.monotonic() - t0 < 1.0
    assert not w.crashed and w.stats().last_error is None


@pytest.mark.timeout(20)
def test_an_open_breaker_is_waited_out_not_hammered(servers):
    fake = servers([])
    clock = [0.0]
    breaker = CircuitBreaker("fake", threshold=1, cooloff=0.3, clock=lambda: clock[0])
    breaker.record_failure(OSError("down"))  # open, and the fake clock never lets it cool off
    w, _ = portal_watch(fake, breaker=lambda name: breaker)
    w.start()
    try:
        wait(lambda: "CircuitOpen" in (w.stats().last_error or ""))
        time.sleep(0.5)
        assert fake.requests == [] and not w.synced.is_set()
        clock[0] = 1.0  # cool-off over: the half-open trial LIST goes through and closes the breaker
        wait(w.synced.is_set)
        assert breaker.state == "closed"
    finally:
        assert stopped(w)


def test_the_breaker_gate_turns_an_open_circuit_into_a_temporary_error_with_its_delay():
    pool = ClientPool(
        [ClusterTarget("c", None, None)],
        factory=lambda t, timeout: object(),
        breaker_factory=lambda name: CircuitBreaker(name, threshold=1, cooloff=7.0),
    )
    pool.breaker("c").record_failure(OSError("down"))

    with pytest.raises(TemporaryError) as caught:
        BreakerGate(pool, "c")(lambda: "never called", attempts=3, sleep=lambda s: None)

    assert 6.0 < caught.value.delay <= 7.0 and "CircuitOpen" in str(caught.value)


@pytest.mark.timeout(20)
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the crash is the point
def test_a_handler_bug_marks_the_watch_crashed_and_the_operator_restarts_it(servers):
    fake = servers([])
    calls = []

    def handler(event_type, obj):
        calls.append(event_type)
        if len(calls) == 1:
            raise KeyError("bug")

    class Kube:
        name = "fake"
        api = fake.api()

    runtime = ClusterRuntime(Kube(), lambda key: None, threading.Event(), instance="t", background_events=False)
    runtime._on_owned = handler
    runtime._start_native(NATIVE["Pod"])
    first = runtime.watches["Pod"]
    wait(lambda: first.crashed)
    assert "KeyError" in (first.last_error or "")

    runtime._restart_crashed()

    second = runtime.watches["Pod"]
    try:
        assert second is not first
        wait(second.synced.is_set)
        wait(lambda: len(calls) == 2)
        assert runtime.store.get("Pod", "ns", "a") is not None
    finally:
        assert runtime.close(5)


@pytest.mark.timeout(20)
def test_the_portal_wiring_slims_each_page_as_it_arrives_and_keeps_no_raw_object():
    """A relist of 100k pods held every raw pod until the swap (2.7 GB of RSS at bench/read_path.py's scale, over
    the chart's 1 GiB limit): each page is slimmed before the next one is read, and the store swaps in those."""
    fake = FakeApiserver([], pods={n: pod(n, "10", app="x") for n in "abcde"})
    slimmed_names = []

    def slimmer(obj):
        slimmed_names.append(obj["metadata"]["name"])
        return {"kind": obj["kind"], "metadata": {k: v for k, v in obj["metadata"].items() if k != "managedFields"}}

    seen_at_page = []
    fake.on_list = lambda query: seen_at_page.append(list(slimmed_names))
    w, store = portal_watch(fake, store=Store(slimmers={"pods": slimmer}), page_size=2)
    w.start()
    try:
        wait(lambda: w.stats().lists == 1)
        assert [q.get("continue", [""])[0] for q in fake.queries[:3]] == ["", "2", "4"]
        # when page k is asked for, the pods of every page before it are already slimmed
        assert seen_at_page[:3] == [[], ["a", "b"], ["a", "b", "c", "d"]]
        assert slimmed_names == list("abcde")  # once each: the swap does not slim them again
        assert [store.get("pods", "ns", n)["metadata"]["name"] for n in "abcde"] == list("abcde")
        assert all("managedFields" not in store.get("pods", "ns", n)["metadata"] for n in "abcde")
        assert store.get("pods", "ns", "a")["kind"] == "Pod"  # the list item got its kind back before slimming
    finally:
        assert stopped(w)
        fake.close()


@pytest.mark.timeout(20)
def test_the_operator_wiring_still_hands_its_handler_the_listed_objects_whole(servers):
    fake = servers([], pods={n: pod(n, "10", **{"app.kubernetes.io/managed-by": "pincompute"}) for n in "abc"})
    events = []
    handled = []
    w, store = operator_watch(fake, events)
    w.on_event = lambda t, o: handled.append(o)
    w.start()
    try:
        wait(lambda: len(handled) == 3)
        assert all("managedFields" in o["metadata"] for o in handled)
        assert "managedFields" in store.get("Pod", "ns", "a")["metadata"]
    finally:
        assert stopped(w)
