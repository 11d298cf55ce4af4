"""Calls the portal makes to one registered cluster's apiserver on behalf of a write (provisioning, the
federation's member objects): the cluster's pooled client, its circuit breaker and retry policy, and the
client's errors classified into the taxonomy by the one mapping (``pincompute.kube.apierrors``) and the
``written`` policy (``Unavailable``: retry later; ``Unprocessable``: needs a human). Used by
``projects.provisioning`` and ``clusters.member_objects``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import yaml
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from kubernetes.dynamic.exceptions import ResourceNotFoundError
from urllib3.exceptions import HTTPError

from base.errors import Conflict, NotFound, ServiceError, Unavailable, Unprocessable
from clusters.kube.breaker import CircuitOpen
from clusters.models import Cluster
from clusters.runtime import api_for, pool_for
from pincompute.kube.apierrors import service_error
from pincompute.kube.retry import is_transient

T = TypeVar("T")
APPLY_ATTEMPTS = 3

# What loading a kubeconfig raises: the client's own error, or its parser's on a file that is cut short,
# not a mapping, or holds bad base64 (a YAML error, TypeError, ValueError...).
_UNLOADABLE = (ConfigException, yaml.YAMLError, TypeError, ValueError, KeyError, AttributeError)


def client(cluster: Cluster, where: str) -> ApiClient:
    """The cluster's client; credentials that cannot be loaded are ``Unprocessable`` (recorded where the
    caller keeps its state, retried after the file is fixed), never an unexpected error after a saved change."""
    try:
        return api_for(cluster)
    except _UNLOADABLE as exc:
        raise Unprocessable(
            f"{where}: the cluster's credentials cannot be loaded from "
            f"{cluster.credentials_reference}: {type(exc).__name__}: {exc}"
        ) from exc


def through_breaker(cluster: Cluster, fn: Callable[[], T], *, trial: bool = False, idempotent: bool = True) -> T:
    """The cluster's circuit breaker and retry policy (a dead cluster fails fast for the next callers).

    ``trial``: a person asked for this call (Retry, typically once the apiserver is back), so an open
    breaker does not refuse it for the rest of its cool-off: one call goes through as its trial, and
    the answer closes the breaker (or keeps it open) for everyone.

    ``idempotent=False`` (a create, a merge patch): sent again only when it surely did not reach the apiserver;
    an ambiguous failure (read timeout, reset after sending) is raised for the caller to resolve."""
    pool = pool_for(cluster)
    breaker = pool.breaker(cluster.name)
    if not trial or breaker.state == "closed":
        return pool.run(cluster.name, fn, attempts=APPLY_ATTEMPTS, idempotent=idempotent)
    try:
        result = fn()
    except ApiException as exc:
        if is_transient(exc):
            breaker.record_failure(exc)
        else:
            breaker.record_success()  # the cluster answered
        raise
    except (HTTPError, OSError) as exc:
        breaker.record_failure(exc)
        raise
    breaker.record_success()
    return result


def written(mapped: ServiceError) -> ServiceError:
    """The policy for a write the portal makes on its own behalf (provisioning, the federation's member objects),
    on top of the one mapping: no user input is in it, so a refusal is ``Unprocessable`` (a human fixes the
    cluster or the platform), a concurrent writer's ``Conflict`` is ``Unavailable`` (the next pass applies again),
    and a 404 hints at the platform's kinds not being installed there."""
    if isinstance(mapped, Unavailable | Conflict):
        return Unavailable(mapped.message)
    if isinstance(mapped, NotFound):
        return Unprocessable(f"{mapped.message} (a kind it does not serve? install the platform there: install-crds)")
    return Unprocessable(mapped.message)


def guarded(where: str, fn: Callable[[], T]) -> T:
    """``fn()`` with the client's errors as the taxonomy's (the ``written`` policy), each message starting with
    ``where``."""
    try:
        return fn()
    except CircuitOpen as exc:
        raise Unavailable(f"{where}: {exc}") from exc
    except ResourceNotFoundError as exc:
        raise Unprocessable(f"{where}: the cluster does not serve {exc}; install the platform there") from exc
    except (ApiException, HTTPError, OSError) as exc:
        raise written(service_error(exc, where)) from exc
    except ConfigException as exc:  # the registry row names a kubeconfig or context that is not there
        raise Unprocessable(f"{where}: the cluster's credentials cannot be loaded: {exc}") from exc
