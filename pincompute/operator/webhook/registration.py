"""The host's ``ValidatingWebhookConfiguration``: every workload kind's creates and updates (not its status, which
only the federation writes) go to the operator's webhook, by URL (the local stack: the apiserver and the operator on
one machine) or by Service (in a cluster: the chart's). Beside it, the ``ValidatingAdmissionPolicy`` and its binding
(``federation.host_policy``), which the apiserver evaluates itself."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any, Literal

from pincompute import GROUP, VERSION
from pincompute.federation import host_policy
from pincompute.kinds import KINDS
from pincompute.labels import MANAGED_BY, MANAGED_BY_LABEL
from pincompute.operator.kubeio import Kube, Resource

CONFIGURATIONS = Resource(
    "admissionregistration.k8s.io/v1",
    "ValidatingWebhookConfiguration",
    "validatingwebhookconfigurations",
    namespaced=False,
)
POLICIES = Resource(
    "admissionregistration.k8s.io/v1",
    "ValidatingAdmissionPolicy",
    "validatingadmissionpolicies",
    namespaced=False,
)
POLICY_BINDINGS = Resource(
    "admissionregistration.k8s.io/v1",
    "ValidatingAdmissionPolicyBinding",
    "validatingadmissionpolicybindings",
    namespaced=False,
)
NAME = "pincompute-host-admission"  # the webhook configuration's, the policy's and its binding's
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


def register_policy(host: Kube) -> None:
    """The policy, then its binding (server-side apply, every replica alike, as ``register``)."""
    host.apply(host_policy.policy(), POLICIES)
    host.apply(host_policy.binding(), POLICY_BINDINGS)


def unregister(host: Kube) -> None:
    """Everything ``register`` and ``register_policy`` made (each absent one skipped): what uninstalling leaves."""
    host.delete(CONFIGURATIONS, None, NAME)
    host.delete(POLICY_BINDINGS, None, host_policy.NAME)
    host.delete(POLICIES, None, host_policy.NAME)
