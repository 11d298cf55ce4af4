"""One ApiClient per member cluster (from the one factory, ``pincompute.kube.client``), plus the breaker and
retry policy every call goes through."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from kubernetes import client as k8s

from pincompute.kube.client import TimedApiClient, new_api_client
from pincompute.kube.rawapi import Timeout
from pincompute.kube.retry import call_with_retry

from .breaker import CircuitBreaker, State

T = TypeVar("T")
P = ParamSpec("P")

DEFAULT_TIMEOUT: Timeout = (3.0, 10.0)
PROBE_TIMEOUT: Timeout = (1.0, 3.0)


@dataclass(frozen=True)
class ClusterTarget:
    """Where to reach one cluster, as the registry describes it."""

    name: str
    kubeconfig_path: str | None
    context: str | None
    in_cluster: bool = False


@dataclass(frozen=True)
class ClusterHealth:
    state: State
    last_error: str | None
    last_success_at: float | None  # unix time
    last_failure_at: float | None


def build_api_client(target: ClusterTarget, timeout: Timeout = DEFAULT_TIMEOUT) -> TimedApiClient:
    """The target's client from the one factory; retry policy is ours (``call_with_retry``), not urllib3's."""
    return new_api_client(
        kubeconfig=target.kubeconfig_path,
        context=target.context,
        in_cluster=target.in_cluster,
        pool_size=32,  # one long-lived connection per watched resource, plus reads
        timeout=timeout,
    )


class ClientPool:
    """Process-wide map cluster name -> (ApiClient, breaker), created lazily and thread-safely."""

    def __init__(
        self,
        targets: Iterable[ClusterTarget] = (),
        *,
        timeout: Timeout = DEFAULT_TIMEOUT,
        breaker_factory: Callable[[str], CircuitBreaker] = CircuitBreaker,
        factory: Callable[[ClusterTarget, Timeout], k8s.ApiClient] = build_api_client,
    ) -> None:
        self.timeout = timeout
        self._targets: dict[str, ClusterTarget] = {t.name: t for t in targets}
        self._clients: dict[str, k8s.ApiClient] = {}
        self._breakers: dict[str, CircuitBreaker] = {}
        self._breaker_factory = breaker_factory
        self._factory = factory
        self._lock = threading.Lock()

    def add(self, target: ClusterTarget) -> None:
        """Register or update a target; a changed target gets a new client on next use."""
        with self._lock:
            if self._targets.get(target.name) != target:
                old = self._clients.pop(target.name, None)
                if old is not None:
                    old.close()
            self._targets[target.name] = target

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._targets)

    def target(self, name: str) -> ClusterTarget:
        with self._lock:
            return self._targets[name]

    def api(self, name: str) -> k8s.ApiClient:
        """The cluster's ApiClient; KeyError for an unknown cluster."""
        with self._lock:
            api = self._clients.get(name)
            if api is None:
                api = self._clients[name] = self._factory(self._targets[name], self.timeout)
            return api

    def breaker(self, name: str) -> CircuitBreaker:
        with self._lock:
            if name not in self._targets:
                raise KeyError(name)
            br = self._breakers.get(name)
            if br is None:
                br = self._breakers[name] = self._breaker_factory(name)
            return br

    def run(
        self,
        name: str,
        fn: Callable[[], T],
        *,
        attempts: int = 5,
        sleep: Callable[[float], object] = time.sleep,
        idempotent: bool = True,
    ) -> T:
        """Retry ``fn`` with backoff; each attempt passes the breaker, so an open circuit stops retries.
        ``idempotent=False`` (a create, a patch): retried only when it surely did not reach the apiserver."""
        br = self.breaker(name)
        return call_with_retry(lambda: br.call(fn), attempts=attempts, sleep=sleep, idempotent=idempotent)

    def call(self, name: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` through the cluster's breaker and the retry policy."""
        return self.run(name, lambda: fn(*args, **kwargs))

    def health(self, name: str) -> ClusterHealth:
        br = self.breaker(name)
        return ClusterHealth(br.state, br.last_error, br.last_success_at, br.last_failure_at)

    def probe(self, name: str) -> str:
        """GET /version with a short timeout, one attempt, through the breaker."""
        version = k8s.VersionApi(self.api(name))
        info = self.run(name, lambda: version.get_code(_request_timeout=PROBE_TIMEOUT), attempts=1)
        return str(info.git_version)

    def close(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for api in clients:
            api.close()
