"""THE factory of Kubernetes API clients: one ``ApiClient`` per cluster, from a kubeconfig context or in-cluster.

Never the process-global default configuration: the portal and the operator talk to several clusters at once,
and a global would make every request race on which cluster it means. The portal's pool
(``clusters.kube.client``) and the operator (``pincompute.operator.app``) both build their clients here.
"""

from __future__ import annotations

from typing import Any

from kubernetes import client as k8s
from kubernetes import config as k8s_config

from pincompute.kube.rawapi import Timeout


class TimedApiClient(k8s.ApiClient):  # type: ignore[misc]  # kubernetes ships no stubs: ApiClient is Any
    """ApiClient that applies a default (connect, read) timeout to every request that sets none.

    Without it a typed-API call made by anyone holding the client could hang on a dead node.
    """

    def __init__(self, configuration: k8s.Configuration, timeout: Timeout | None) -> None:
        super().__init__(configuration=configuration)
        self.default_timeout = timeout

    def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("_request_timeout") and self.default_timeout is not None:
            kwargs["_request_timeout"] = self.default_timeout
        return super().request(method, url, *args, **kwargs)


def new_api_client(
    *,
    kubeconfig: str | None = None,
    context: str | None = None,
    in_cluster: bool = False,
    pool_size: int = 32,
    timeout: Timeout | None = None,
    urllib3_retries: bool = False,
) -> TimedApiClient:
    """A client with its own Configuration: the service account's (``in_cluster``) or ``context`` of ``kubeconfig``.

    ``pool_size``: connections kept per host (each watch holds one for its whole life). ``timeout``: the (connect,
    read) seconds of every request that sets none (``None``: the caller sets one on each). ``urllib3_retries``:
    keep urllib3's own connect retries, for a caller with no retry policy of its own per call (the operator:
    its work queue backs off per key); a caller that retries (``call_with_retry``) turns them off, or the two
    would multiply."""
    cfg = k8s.Configuration()
    if in_cluster:
        k8s_config.load_incluster_config(client_configuration=cfg)
    else:
        k8s_config.load_kube_config(
            config_file=kubeconfig, context=context, client_configuration=cfg, persist_config=False
        )
    if not urllib3_retries:
        cfg.retries = False
    cfg.connection_pool_maxsize = pool_size
    return TimedApiClient(cfg, timeout)
