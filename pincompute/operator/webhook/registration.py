"""The host's ``ValidatingWebhookConfiguration``: every workload kind's creates and updates (not its status, which
only the federation writes) go to the operator's webhook, by URL (the local stack: the apiserver and the operator on
one machine) or by Service (in a cluster: the chart's)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Literal

from pincompute import GROUP, VERSION
from pincompute.kinds import KINDS
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.operator.kubeio import Kube, Resource

CONFIGURATIONS = Resource(
    "admissionregistration.k8s.io/v1",
    "ValidatingWebhookConfiguration",
    "validatingwebhookconfigurations",
    namespaced=False,
)
NAME = "pincompute-host-admission"
WEBHOOK = "workloads.host.pincompute.io"
PATH = "/validate"
FailurePolicy = Literal["Fail", "Ignore"]


@dataclass(frozen=True)
class ServiceRef:
    namespace: str
    name: str
    port: int = 443

    @property
    def dns_names(self) -> list[str]:
        return [f"{self.name}.{self.namespace}.svc", f"{self.name}.{self.namespace}.svc.cluster.local"]

    @classmethod
    def parse(cls, text: str) -> ServiceRef:
        """``NAMESPACE/NAME[:PORT]``."""
        where, _, port = text.partition(":")
        namespace, slash, name = where.partition("/")
        if not slash or not namespace or not name or (port and not port.isdigit()):
            raise ValueError(f"{text!r} is not NAMESPACE/NAME[:PORT]")
        return cls(namespace, name, int(port) if port else 443)


def configuration(
    ca: bytes, *, url: str | None = None, service: ServiceRef | None = None, failure_policy: FailurePolicy = "Fail"
) -> dict[str, Any]:
    client: dict[str, Any] = {"caBundle": base64.b64encode(ca).decode()}
    if service is not None:
        client["service"] = {"namespace": service.namespace, "name": service.name, "port": service.port, "path": PATH}
    else:
        client["url"] = url
    return {
        "apiVersion": CONFIGURATIONS.api_version,
        "kind": CONFIGURATIONS.kind,
        "metadata": {"name": NAME, "labels": {MANAGED_BY_LABEL: MANAGED_BY}},
        "webhooks": [
            {
                "name": WEBHOOK,
                "clientConfig": client,
                "rules": [
                    {
                        "apiGroups": [GROUP],
                        "apiVersions": [VERSION],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": sorted(info.plural for info in KINDS.values()),
                        "scope": "Namespaced",
                    }
                ],
                "failurePolicy": failure_policy,
                "matchPolicy": "Equivalent",
                "sideEffects": "None",
                "timeoutSeconds": 10,
                "admissionReviewVersions": ["v1"],
            }
        ],
    }


def register(host: Kube, manifest: dict[str, Any]) -> None:
    """Server-side apply: every replica registers the same configuration, the last write changing nothing."""
    host.apply(manifest, CONFIGURATIONS)


def unregister(host: Kube) -> None:
    host.delete(CONFIGURATIONS, None, NAME)
