import json
import threading

import pytest
import yaml
from kubernetes import client as k8s

from clusters.kube.client import ClientPool, ClusterTarget
from pincompute.kube import rawapi
from pincompute.kube.client import TimedApiClient


def kubeconfig(tmp_path):
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "member-a",
        "clusters": [
            {"name": n, "cluster": {"server": f"https://127.0.0.1:{p}", "insecure-skip-tls-verify": True}}
            for n, p in (("member-a", 6443), ("member-b", 7443))
        ],
        "users": [{"name": "admin", "user": {"token": "t0ken"}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "admin"}} for n in ("member-a", "member-b")],
    }
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_one_client_per_cluster_from_its_own_context_never_the_global_default(tmp_path):
    cfg = kubeconfig(tmp_path)
    global_host = k8s.Configuration.get_default_copy().host
    pool = ClientPool([ClusterTarget("a", cfg, "member-a"), ClusterTarget("b", cfg, "member-b")])

    a, b = pool.api("a"), pool.api("b")

    assert a is pool.api("a") and a is not b
    assert (a.configuration.host, b.configuration.host) == ("https://127.0.0.1:6443", "https://127.0.0.1:7443")
    assert a.configuration.retries is False
    assert k8s.Configuration.get_default_copy().host == global_host
    with pytest.raises(KeyError):
        pool.api("nope")
    pool.close()


def test_lazy_creation_is_thread_safe():
    built = []
    pool = ClientPool([ClusterTarget("a", None, None)], factory=lambda t, timeout: built.append(t) or object())
    threads = [threading.Thread(target=pool.api, args=("a",)) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(built) == 1


def test_default_timeout_is_applied_to_requests_that_set_none(monkeypatch):
    seen = []
    monkeypatch.setattr(k8s.ApiClient, "request", lambda self, method, url, **kw: seen.append(kw))
    api = TimedApiClient(k8s.Configuration(), timeout=(3, 10))

    api.request("GET", "https://x/version", query_params=[])
    api.request("GET", "https://x/version", _request_timeout=(1, 2))

    assert [kw["_request_timeout"] for kw in seen] == [(3, 10), (1, 2)]


class FakeStream:
    def __init__(self, chunks):
        self.chunks = chunks

    def stream(self, amt=None, decode_content=False):
        yield from self.chunks


def line(event):
    return json.dumps(event).encode() + b"\n"


def test_watch_stream_lines_are_decoded_across_chunk_boundaries():
    data = line({"type": "ADDED", "object": {"metadata": {"name": "a"}}}) + line(
        {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "42"}}}
    )
    chunks = [data[:7], data[7:50], data[50:]]

    events = list(rawapi.iter_events(FakeStream(chunks)))

    assert [e["type"] for e in events] == ["ADDED", "BOOKMARK"]


def test_error_event_410_means_relist_and_other_errors_mean_reconnect():
    gone = line({"type": "ERROR", "object": {"kind": "Status", "code": 410, "message": "too old resource version"}})
    with pytest.raises(rawapi.WatchGone):
        list(rawapi.iter_events(FakeStream([gone])))
    other = line({"type": "ERROR", "object": {"kind": "Status", "code": 500, "reason": "InternalError"}})
    with pytest.raises(rawapi.WatchError):
        list(rawapi.iter_events(FakeStream([other])))
