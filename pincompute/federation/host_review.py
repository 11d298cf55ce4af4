"""What the host's admission webhook refuses when a workload is written there by anyone (kubectl, Argo CD, Flux, the
portal): the portal's own submission checks, judged from what the host holds instead of the portal's database.

In order, the first failing step deciding: the namespace must be an onboarded project's (it holds a
``ProjectQuota``); ``spec.project`` must name that project and the spec must pass the library's validation
(``host_checks``); the spec must keep to the project's policy (``pincompute.policy``, from the namespace's
``pincompute.io/policy`` annotation, which provisioning writes); the pod templates must pass the Pod Security level
the namespace enforces (its ``pod-security.kubernetes.io/enforce`` label, which provisioning sets from the project);
every zone in ``spec.zones`` must be served by a member cluster; every Secret and ConfigMap the pods use (and each key
they read) must be one the project holds, as the portal made it (``pincompute.config_refs``; the federation copies
nothing else to the members); and the workload alone must fit its tier's grant (a request no grant can ever hold).
Each problem is a ``FieldError`` with the path a person fixes, worded as the portal words it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pincompute.config_refs import references, unresolved
from pincompute.configs import ConfigKind
from pincompute.errors import FieldError
from pincompute.federation.admission import claim_of, shortfalls
from pincompute.federation.host_checks import INVALID_SPEC, HostProblems, host_problems
from pincompute.grants import Allocation
from pincompute.labels import POD_SECURITY_ENFORCE_LABEL
from pincompute.podsecurity import pod_security_violations
from pincompute.policy import OPEN, ProjectPolicy, policy_violations
from pincompute.quantity import format_amount
from pincompute.runtime import RuntimeProfile
from pincompute.specs import parse
from pincompute.tenancy import PodSecurity, grants_of_quota
from pincompute.tiers import Tier

NOT_A_PROJECT = "NotAProject"
PROJECT_POLICY = "ProjectPolicy"
POD_SECURITY = "PodSecurity"
UNKNOWN_ZONE = "UnknownZone"
UNKNOWN_CONFIG = "UnknownConfig"
NEVER_FITS = "NeverFits"


@dataclass(frozen=True)
class Surroundings:
    """What the host holds around one write: the namespace's ``ProjectQuota`` (None: no project's namespace), the
    level its Pod Security label enforces (None: unlabelled, not checked), the zones its members serve (empty:
    no MemberCluster yet, not checked), the project's policy (its annotation; none: ``OPEN``) and the keys of each
    of the project's Secrets/ConfigMaps of the kinds the write uses (None: not read, because it uses none)."""

    quota: Mapping[str, Any] | None
    pod_security: PodSecurity | None
    zones: frozenset[str]
    policy: ProjectPolicy = OPEN
    configs: Mapping[tuple[ConfigKind, str], frozenset[str]] | None = None


def enforced_level(namespace_labels: Mapping[str, str] | None) -> PodSecurity | None:
    """The Pod Security level a namespace enforces (None when it names none the standard knows)."""
    value = (namespace_labels or {}).get(POD_SECURITY_ENFORCE_LABEL)
    try:
        return PodSecurity(value)
    except ValueError:
        return None


def member_zones(member_clusters: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """The zones the host's MemberCluster objects serve."""
    return frozenset(z for m in member_clusters if (z := str((m.get("spec") or {}).get("zone") or "")))


def never_fits(tier: Tier, grant: Allocation, request: Allocation) -> list[FieldError]:
    """What the workload alone asks beyond its tier's whole grant, one error per resource (empty: it could fit)."""
    return [
        FieldError(
            f"{s.tier.value}.{s.resource}",
            f"{s.tier.value} {s.resource}: it alone requests {format_amount(s.resource, s.requested)}, more than "
            f"the project's whole grant of {format_amount(s.resource, s.grant)}",
        )
        for s in shortfalls(tier, grant, Allocation(), request)
    ]


def zone_problems(obj: Mapping[str, Any], zones: frozenset[str]) -> list[FieldError]:
    spec = obj.get("spec")
    asked = spec.get("zones") if isinstance(spec, Mapping) else None
    if not zones or not isinstance(asked, list):
        return []
    known = ", ".join(sorted(zones))
    return [
        FieldError(f"spec.zones[{index}]", f"no member cluster serves zone {zone!r} (zones served: {known})")
        for index, zone in enumerate(asked)
        if isinstance(zone, str) and zone not in zones
    ]


def review(obj: Mapping[str, Any], around: Surroundings, profile: RuntimeProfile, now: datetime) -> HostProblems:
    """Everything the host refuses ``obj`` for, the first failing step's reason naming it (empty: admitted)."""
    if around.quota is None:
        namespace = (obj.get("metadata") or {}).get("namespace")
        return HostProblems(
            NOT_A_PROJECT,
            (
                FieldError(
                    "metadata.namespace",
                    f"namespace {namespace} has no ProjectQuota: it is not an onboarded project's namespace, so "
                    "nothing is granted here (onboard the project in the portal)",
                ),
            ),
        )
    problems = host_problems(obj, around.quota)
    if problems:
        return problems
    against_policy = policy_violations(around.policy, obj)
    if against_policy:
        return HostProblems(PROJECT_POLICY, tuple(against_policy))
    if around.pod_security is not None:
        violations = pod_security_violations(obj, around.pod_security, profile)
        if violations:
            return HostProblems(POD_SECURITY, tuple(violations))
    unknown = zone_problems(obj, around.zones)
    if unknown:
        return HostProblems(UNKNOWN_ZONE, tuple(unknown))
    missing = unresolved(references(obj), around.configs) if around.configs is not None else []
    if missing:
        return HostProblems(UNKNOWN_CONFIG, tuple(missing))
    workload = parse(dict(obj))
    request = claim_of(workload, now, profile=profile).request
    tier = workload.meta.tier
    beyond = never_fits(tier, grants_of_quota(around.quota).get(tier, Allocation()), request)
    return HostProblems(NEVER_FITS if beyond else INVALID_SPEC, tuple(beyond))
