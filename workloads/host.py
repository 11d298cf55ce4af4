"""The portal's writes and point reads of workload objects on the host cluster (the federation's store).

Every call goes through the host's circuit breaker and retry policy (``clusters.remote``) and comes back
as the error taxonomy: the apiserver's 404 is ``NotFound``, 409 ``Conflict`` (with the live version), 422
``Invalid`` naming each field the apiserver refused; an unreachable host is ``Unavailable`` (503).
Lists come from the host watch cache (``clusters.runtime.host_cache``), for pages and the API alike; the one list
made here is ``list_namespace``, under a project's lock (``workloads.growth``), which must see the write the
previous holder of the lock just made.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from kubernetes.client import CustomObjectsApi
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError

from base.errors import Conflict, Invalid, NotFound, Unavailable
from clusters import remote
from clusters.models import Cluster, FederationRole
from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS, kind_info
from pincompute.kube import apierrors
from pincompute.kube.retry import describe, is_transient, surely_unsent
from pincompute.specs.checks import dns_subdomain

T = TypeVar("T")
log = logging.getLogger(__name__)
FIELD_MANAGER = "pinconsole"


def version_of(obj: dict[str, Any]) -> str:
    """The version people and clients compare (the API's ETag, a page's If-Match): ``metadata.generation``, which
    only a spec change moves. The resourceVersion also moves with every status write (a shard's pod becoming
    ready), which would make every held version stale within seconds; writes still send the live
    resourceVersion they read, so a change between that read and the write is a 409 too."""
    return str((obj.get("metadata") or {}).get("generation") or "")


def object_name(value: str) -> bool:
    """Whether ``value`` can name a Kubernetes object (a DNS-1123 subdomain, at most 253 characters)."""
    return dns_subdomain(value) is None


def _absent_unless_named(what: str, name: str) -> None:
    """A name no object can have names none: NotFound, without asking the apiserver (which would answer
    ``(400) Name parameter invalid``, or read another path: a name is a URL segment)."""
    if not object_name(name):
        raise NotFound(f"{what}: not found")


class OutcomeUnknown(Unavailable):
    """A write that is not idempotent (a create, a merge patch) failed after it may have reached the apiserver
    (a read timeout, a connection cut once sent, a 5xx): it may or may not have been applied, and it was not
    sent again. The caller reads back what happened; what it cannot resolve is answered as this 503."""

    outcome_unknown = True  # pages must not add "nothing was changed" to its message


def host_cluster() -> Cluster:
    host = Cluster.objects.filter(role=FederationRole.HOST).order_by("pk").first()
    if host is None:
        raise Unavailable("No host cluster is registered: workloads are persisted there first.")
    return host


def _call(what: str, fn: Callable[[CustomObjectsApi], T], *, idempotent: bool = True) -> T:
    """``fn`` on the host through its breaker and retry policy, errors as the taxonomy's. ``idempotent=False``
    (a create, a patch): sent again only when it surely did not reach the apiserver; an ambiguous failure is
    ``OutcomeUnknown``, for the caller to resolve by reading back."""
    host = host_cluster()

    def attempt() -> T:
        return fn(CustomObjectsApi(remote.client(host, what)))

    def unknown(exc: BaseException) -> OutcomeUnknown:
        log.warning("%s on %s: answer lost, not sent again: %r", what, host.name, exc)  # the full text, for logs
        return OutcomeUnknown(
            f"{what} on {host.name}: its answer was lost ({describe(exc, cluster=host.name)}); "
            "it may or may not have been applied."
        )

    def run() -> T:
        try:
            return remote.through_breaker(host, attempt, idempotent=idempotent)
        except ApiException as exc:
            mapped = _mapped(exc, what)
            if mapped is not None:
                raise mapped from exc
            if not idempotent and is_transient(exc) and not surely_unsent(exc):
                raise unknown(exc) from exc
            raise
        except (HTTPError, OSError) as exc:
            if not idempotent and not surely_unsent(exc):
                raise unknown(exc) from exc
            raise

    return remote.guarded(f"{what} on {host.name}", run)


def _mapped(exc: ApiException, what: str) -> Exception | None:
    """The one mapping's answer in the host's words, for what the caller must hear as it is (absent, changed,
    refused with the fields named); ``None`` for the rest (temporary, permanent), which ``remote.guarded`` words.
    A 404 never repeats the apiserver's text: it would say which of another tenant's names exist."""
    mapped = apierrors.service_error(exc, what)
    if isinstance(mapped, NotFound):
        return NotFound(f"{what}: not found")
    if isinstance(mapped, Conflict):
        return Conflict(f"{what}: {apierrors.said(exc)}")
    if isinstance(mapped, Invalid):
        return Invalid(f"{what}: the host's apiserver refused it: {apierrors.said(exc)}", fields=mapped.fields)
    return None


def _plural(kind: str) -> str:
    return kind_info(kind).plural


def get(kind: str, namespace: str, name: str) -> dict[str, Any]:
    """The live object (a point read: writes need its resourceVersion)."""
    _absent_unless_named(f"read {kind}/{name}", name)
    return _call(
        f"read {kind}/{name}",
        lambda api: api.get_namespaced_custom_object(GROUP, VERSION, namespace, _plural(kind), name),
    )


def list_namespace(namespace: str) -> list[dict[str, Any]]:
    """Every workload object in ``namespace``, read live (one list per kind), each with its kind set."""
    return [obj for kind in KINDS for obj in list_kind(kind, namespace)]


def list_kind(kind: str, namespace: str) -> list[dict[str, Any]]:
    """The ``kind`` objects in ``namespace``, read live, each with its kind set."""
    plural = _plural(kind)
    listed = _call(f"list {plural}", lambda api: api.list_namespaced_custom_object(GROUP, VERSION, namespace, plural))
    return [{**item, "kind": kind} for item in listed.get("items") or []]


def create(manifest: dict[str, Any]) -> dict[str, Any]:
    """A POST: never sent twice after an ambiguous failure (``OutcomeUnknown``: the caller reads back)."""
    kind, meta = manifest["kind"], manifest["metadata"]
    return _call(
        f"create {kind}/{meta['name']}",
        lambda api: api.create_namespaced_custom_object(
            GROUP, VERSION, meta["namespace"], _plural(kind), manifest, field_manager=FIELD_MANAGER
        ),
        idempotent=False,
    )


def replace(manifest: dict[str, Any]) -> dict[str, Any]:
    """Replace spec, labels and annotations; ``metadata.resourceVersion`` makes it conditional (409 when stale)."""
    kind, meta = manifest["kind"], manifest["metadata"]
    return _call(
        f"update {kind}/{meta['name']}",
        lambda api: api.replace_namespaced_custom_object(
            GROUP, VERSION, meta["namespace"], _plural(kind), meta["name"], manifest, field_manager=FIELD_MANAGER
        ),
    )


def patch(kind: str, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
    """A JSON merge patch (operations, scale); a ``metadata.resourceVersion`` in ``body`` makes it conditional.
    It may set a relative value (a restart's time), so it is never sent twice after an ambiguous failure
    (``OutcomeUnknown``: the caller reads back)."""
    _absent_unless_named(f"update {kind}/{name}", name)
    return _call(
        f"update {kind}/{name}",
        lambda api: api.patch_namespaced_custom_object(
            GROUP, VERSION, namespace, _plural(kind), name, body, field_manager=FIELD_MANAGER
        ),
        idempotent=False,
    )


def delete(kind: str, namespace: str, name: str, *, uid: str | None = None) -> None:
    _absent_unless_named(f"delete {kind}/{name}", name)
    body = {"preconditions": {"uid": uid}} if uid else None
    _call(
        f"delete {kind}/{name}",
        lambda api: api.delete_namespaced_custom_object(GROUP, VERSION, namespace, _plural(kind), name, body=body),
    )
