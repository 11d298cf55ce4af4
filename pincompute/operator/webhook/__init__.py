"""The host's validating admission webhook, served by the operator that runs the federation: a workload written
on the host by anyone (kubectl, a GitOps tool, the portal) is refused at once with the portal's field paths and
messages instead of being admitted and reported later in conditions. ``start`` gets the shared certificate,
serves, and registers the configuration that sends the apiserver's writes here; first of all it registers the
ValidatingAdmissionPolicy (``federation.host_policy``), which needs nothing served.

The failure policy is ``Fail`` by default: while no replica answers, workload writes on the host are refused
("failed calling webhook"), so nothing unchecked gets in; the chart runs two replicas. ``Ignore`` trades that for
availability (the federation's admission still refuses what the webhook would have, later, in conditions). The
policy's own failure policy is ``Fail`` too: it runs inside the apiserver, so it cannot be unreachable; only an
expression that cannot be evaluated would refuse a write.
"""

from __future__ import annotations

from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from urllib.parse import urlparse

from pincompute.operator.kubeio import Kube
from pincompute.operator.webhook.registration import (
    PATH,
    FailurePolicy,
    ServiceRef,
    configuration,
    register,
    register_policy,
)
from pincompute.operator.webhook.review import surroundings
from pincompute.operator.webhook.server import serve
from pincompute.operator.webhook.tls import serving_material
from pincompute.runtime import RuntimeProfile


@dataclass(frozen=True)
class WebhookSettings:
    bind: tuple[str, int]
    secret_namespace: str
    url: str | None = None  # what the apiserver calls; default https://BIND_HOST:PORT/validate
    service: ServiceRef | None = None  # in a cluster: the Service in front of the replicas
    failure_policy: FailurePolicy = "Fail"


def start(settings: WebhookSettings, host: Kube, profile: RuntimeProfile) -> ThreadingHTTPServer:
    """Policy, certificate, server, registration, in that order (the apiserver is sent here only once it answers)."""
    register_policy(host)
    bind_host = settings.bind[0]
    names = settings.service.dns_names if settings.service else [urlparse(settings.url or "").hostname or bind_host]
    material = serving_material(host, settings.secret_namespace, names)
    server = serve(settings.bind, material, lambda namespace, kinds: surroundings(host, namespace, kinds), profile)
    url = settings.url or f"https://{bind_host}:{server.server_port}{PATH}"
    manifest = configuration(
        material.ca,
        url=None if settings.service else url,
        service=settings.service,
        failure_policy=settings.failure_policy,
    )
    register(host, manifest)
    return server
