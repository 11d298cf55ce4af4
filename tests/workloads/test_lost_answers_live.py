"""Writes whose answer is lost on the way back from the real host apiserver (a TCP proxy between the portal's
client and the apiserver forwards the request, then swallows its answer, as /tmp/p5s/proxy.py did in the
failure probe): a create is never sent twice but read back, and answered as created with its audit row; a PUT
that creates does the same; an operation is applied at most once; an outcome that cannot be told is a 503
saying so."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from base.errors import Unavailable
from base.models import AuditEvent
from clusters import remote, runtime
from clusters.kube.client import build_api_client
from clusters.models import FederationRole
from tests.support.provisioning import eager_tasks, federation, pools, register, team_project  # noqa: F401
from tests.support.submission import on_host, pinapp
from workloads import host, services, submission

pytestmark = [
    pytest.mark.integration,
    pytest.mark.cluster,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_tasks", "pools"),
]
READ_TIMEOUT = 2.0


class LosingProxy:
    """Forwards TCP both ways; ``arm()``: the answers on the connection that carries the next request (the next
    TLS application-data record from the client) are swallowed, and that connection goes silent. The
    apiserver still gets the request and executes it."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.armed = False
        self.swallowed = 0
        self.connections = 0
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self) -> None:
        with self.lock:
            self.armed = True

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            self.sockets += [client, server]
            self.connections += 1
            state = {"silent": False}
            threading.Thread(target=self._pump, args=(client, server, state, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, state, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, state: dict[str, bool], upstream: bool) -> None:
        try:
            while data := source.recv(65536):
                if upstream and b"\x17\x03\x03" in data:  # a TLS application-data record: a request
                    with self.lock:
                        if self.armed:
                            self.armed, state["silent"] = False, True
                if not upstream and state["silent"]:
                    self.swallowed += 1
                    continue
                sink.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def proxy(federation, monkeypatch) -> Iterator[LosingProxy]:  # noqa: F811
    """The host's calls from the workload services go through a ``LosingProxy`` (short read timeout)."""
    host_row = next(c for c in federation if c.role == FederationRole.HOST)
    api = build_api_client(runtime.target_for(host_row), timeout=(3.0, READ_TIMEOUT))
    server = urlparse(api.configuration.host)
    losing = LosingProxy((server.hostname or "127.0.0.1", server.port or 443))
    real, proxied = f"https://{server.netloc}", f"https://{server.hostname}:{losing.port}"
    request = api.request  # the kubeconfig loader's token refresh sets configuration.host again: rewrite URLs

    def through_proxy(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        return request(method, url.replace(real, proxied, 1), *args, **kwargs)

    api.request = through_proxy
    original = remote.client

    def client(cluster: Any, where: str) -> Any:
        return api if cluster.role == FederationRole.HOST else original(cluster, where)

    monkeypatch.setattr(remote, "client", client)
    yield losing
    losing.close()
    api.close()


def arming(monkeypatch, proxy: LosingProxy, function: str, times: int = 1) -> list[int]:
    """The proxy armed right before the first ``times`` calls of ``workloads.host.<function>``; counts calls."""
    real = getattr(host, function)
    calls: list[int] = []

    def armed(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= times:
            proxy.arm()
        return real(*args, **kwargs)

    monkeypatch.setattr(host, function, armed)
    return calls


@pytest.fixture
def project(admin_user: Any, user: Any) -> Any:
    return team_project("lost", admin_user, user, grants={"ondemand": ("4", "8Gi", "0", "0")})


def audit(action: str, name: str = "web") -> int:
    return AuditEvent.objects.filter(action=action, target_name=name).count()


def test_a_create_whose_answer_was_lost_is_answered_as_created_with_its_audit_row(
    project, user, proxy, monkeypatch, cluster_api_clients
):
    arming(monkeypatch, proxy, "create")

    accepted = services.submit_workload(project, pinapp(), actor=user, create_only=True)

    assert proxy.swallowed >= 1  # the answer really was lost
    assert accepted.created and accepted.manifest["metadata"]["name"] == "web"
    live = on_host(cluster_api_clients["host"], project)
    assert live is not None and live["metadata"]["uid"] == accepted.manifest["metadata"]["uid"]
    assert live["metadata"]["annotations"][submission.REQUEST_ANNOTATION]
    assert audit("workload.create") == 1


def test_a_put_that_creates_and_loses_its_answer_is_answered_as_created(
    project, user, proxy, monkeypatch, cluster_api_clients
):
    arming(monkeypatch, proxy, "create")

    accepted = services.submit_workload(project, pinapp(), actor=user)  # the API's PUT: create or update

    assert proxy.swallowed >= 1
    assert accepted.created and on_host(cluster_api_clients["host"], project) is not None
    assert audit("workload.create") == 1

    # An edit sends the platform's request annotation back: it is dropped, not refused.
    again = pinapp(replicas=3)
    again["metadata"]["annotations"] = dict(accepted.manifest["metadata"]["annotations"])
    updated = services.submit_workload(project, again, actor=user)
    assert not updated.created and updated.manifest["spec"]["replicas"] == 3


def test_an_update_whose_answer_was_lost_answers_updated_not_a_409_against_its_own_version(
    project, user, proxy, monkeypatch, cluster_api_clients
):
    created = services.submit_workload(project, pinapp(), actor=user)
    calls = arming(monkeypatch, proxy, "replace")

    updated = services.submit_workload(
        project, pinapp(replicas=3), actor=user, version=created.version
    )  # PUT with If-Match

    assert proxy.swallowed >= 1
    assert not updated.created and updated.manifest["spec"]["replicas"] == 3
    assert len(calls) == 1
    after = on_host(cluster_api_clients["host"], project)
    assert after["spec"]["replicas"] == 3 and after["metadata"]["generation"] == 2
    assert audit("workload.update") == 1


def test_a_restart_whose_answer_was_lost_restarts_once_and_is_audited(
    project, user, proxy, monkeypatch, cluster_api_clients
):
    services.submit_workload(project, pinapp(), actor=user)
    before = on_host(cluster_api_clients["host"], project)
    calls = arming(monkeypatch, proxy, "patch")

    outcome = services.operate_workload(project, "PinApp", "web", "restart", actor=user)

    assert proxy.swallowed >= 1
    after = on_host(cluster_api_clients["host"], project)
    assert after["metadata"]["generation"] == before["metadata"]["generation"] + 1  # one restart, not two
    assert len(calls) == 1  # never patched again
    assert outcome.changed
    assert outcome.obj["spec"]["operations"]["restartedAt"] == after["spec"]["operations"]["restartedAt"]
    assert audit("workload.restart") == 1


def test_a_create_whose_outcome_cannot_be_told_is_a_503_saying_so(project, user, monkeypatch, federation):  # noqa: F811
    def lost(manifest: dict[str, Any]) -> dict[str, Any]:
        raise host.OutcomeUnknown("create PinApp/web on host: its answer was lost")  # and it did not land

    monkeypatch.setattr(host, "create", lost)

    with pytest.raises(Unavailable) as unknown:
        services.submit_workload(project, pinapp(), actor=user, create_only=True)

    assert unknown.value.status == 503
    assert "unknown" in unknown.value.message and "GET /api/v1/projects/" in unknown.value.message
    assert "nothing was changed" not in unknown.value.message.lower()
    assert audit("workload.create") == 0
