"""One ``AdmissionReview`` (admission.k8s.io/v1) answered: a workload write on the host judged by
``pincompute.federation.host_review`` with what the host holds around it, read fresh for each request.

Let through without judging: deletes and connects (not registered anyway), an object being deleted, an update
that leaves ``spec`` as it was (the federation's finalizers and annotations, a label change: an object admitted
before the webhook existed must still be deletable and labelable) unless it changes the ownership annotations
(``pincompute.ownership``: only those are judged then, so ``kubectl annotate`` gets the portal's sentences), and
a break-glass write (a member of ``BREAK_GLASS_GROUP`` setting ``BREAK_GLASS_ANNOTATION`` to a reason), which carries
an audit annotation into the apiserver's audit log and a warning back to the client. A host read that fails refuses
the write (the same as the ``Fail`` failure policy would): nothing unjudged gets in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pincompute.config_refs import references
from pincompute.configs import ConfigKind
from pincompute.errors import CoreError, FieldError
from pincompute.federation.host_checks import INVALID_SPEC
from pincompute.federation.host_review import Surroundings, enforced_level, member_zones, review
from pincompute.labels import BREAK_GLASS_ANNOTATION, BREAK_GLASS_GROUP, POLICY_ANNOTATION
from pincompute.operator.federation.config_watches import CONFIG_RESOURCES, CONFIG_SELECTOR
from pincompute.operator.federation.host import MEMBERS, QUOTA
from pincompute.operator.kubeio import Kube, Resource
from pincompute.ownership import LINKS_ANNOTATION, ONCALL_ANNOTATION, check_annotations
from pincompute.policy import parse_annotation
from pincompute.runtime import RuntimeProfile

log = logging.getLogger("pincompute.operator.webhook")
Around = Callable[[str, frozenset[ConfigKind]], Surroundings]  # a namespace and the config kinds a write uses
NAMESPACES = Resource("v1", "Namespace", "namespaces", namespaced=False)
AUDIT_KEY = "break-glass"


@dataclass(frozen=True)
class Answer:
    allowed: bool
    message: str = ""
    reason: str = ""
    causes: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    audit: Mapping[str, str] = field(default_factory=dict)

    def response(self, uid: str) -> dict[str, Any]:
        out: dict[str, Any] = {"uid": uid, "allowed": self.allowed}
        if not self.allowed:
            out["status"] = {
                "status": "Failure",
                "code": 422,
                "reason": "Invalid",
                "message": self.message,
                "details": {"causes": [{"field": f, "message": m, "reason": self.reason} for f, m in self.causes]},
            }
        if self.warnings:
            out["warnings"] = list(self.warnings)
        if self.audit:
            out["auditAnnotations"] = dict(self.audit)
        return out


def surroundings(host: Kube, namespace: str, kinds: frozenset[ConfigKind] = frozenset()) -> Surroundings:
    """The namespace's quota, Pod Security level and policy, the members' zones and, of ``kinds`` (those the write
    uses), the project's Secrets/ConfigMaps with their keys, as the host holds them now (a policy annotation that
    cannot be read raises ``SpecInvalid``, which refuses the write)."""
    meta = host.get(NAMESPACES, None, namespace).get("metadata") or {}
    policy = parse_annotation((meta.get("annotations") or {}).get(POLICY_ANNOTATION))
    quotas = host.list(QUOTA, namespace=namespace).get("items") or []
    members = host.list(MEMBERS).get("items") or []
    configs = held_configs(host, namespace, kinds) if kinds else None
    return Surroundings(
        quotas[0] if quotas else None, enforced_level(meta.get("labels") or {}), member_zones(members), policy, configs
    )


def held_configs(
    host: Kube, namespace: str, kinds: frozenset[ConfigKind]
) -> dict[tuple[ConfigKind, str], frozenset[str]]:
    """The keys of each of the project's Secrets/ConfigMaps of ``kinds``: the portal's (its label), as the federation
    copies them; values are read by the list and dropped here."""
    held: dict[tuple[ConfigKind, str], frozenset[str]] = {}
    for kind in sorted(kinds):
        listed = host.list(CONFIG_RESOURCES[kind], namespace=namespace, selector=CONFIG_SELECTOR)
        for obj in listed.get("items") or []:
            keys = {*(obj.get("data") or {}), *(obj.get("binaryData") or {})}
            held[(kind, str(obj["metadata"]["name"]))] = frozenset(keys)
    return held


def _ownership_answer(old: Mapping[str, Any], obj: Mapping[str, Any]) -> Answer:
    """An update that keeps ``spec``: refused only when it writes an ownership annotation the library refuses."""
    before = (old.get("metadata") or {}).get("annotations") or {}
    after = (obj.get("metadata") or {}).get("annotations") or {}
    changed = {k: after[k] for k in (ONCALL_ANNOTATION, LINKS_ANNOTATION) if k in after and after[k] != before.get(k)}
    errors: list[FieldError] = []
    check_annotations(changed, "metadata.annotations", errors)
    if not errors:
        return Answer(True)
    name = (obj.get("metadata") or {}).get("name")
    message = "; ".join(str(e) for e in errors)
    causes = tuple((e.path, e.message) for e in errors)
    return Answer(False, f"{obj.get('kind')} {name} refused ({INVALID_SPEC}): {message}", INVALID_SPEC, causes)


def answer(
    request: Mapping[str, Any],
    around: Around,
    profile: RuntimeProfile,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Answer:
    obj = request.get("object") or {}
    old = request.get("oldObject") or {}
    meta = obj.get("metadata") or {}
    if request.get("operation") not in ("CREATE", "UPDATE") or meta.get("deletionTimestamp"):
        return Answer(True)
    if request.get("operation") == "UPDATE" and old.get("spec") == obj.get("spec"):
        return _ownership_answer(old, obj)
    user = request.get("userInfo") or {}
    reason = str((meta.get("annotations") or {}).get(BREAK_GLASS_ANNOTATION) or "").strip()
    if reason and BREAK_GLASS_GROUP in (user.get("groups") or []):
        said = f"{user.get('username')} wrote {obj.get('kind')} {request.get('namespace')}/{meta.get('name')}: {reason}"
        log.warning("break-glass: %s", said)
        return Answer(
            True,
            warnings=(f"break-glass: the platform's checks were skipped for this write ({reason})",),
            audit={AUDIT_KEY: said},
        )
    namespace = str(request.get("namespace") or meta.get("namespace") or "")
    try:
        held = around(namespace, frozenset(ref.kind for ref in references(obj)))
    except CoreError as exc:
        return Answer(False, f"the platform could not read what the host holds for namespace {namespace}: {exc}")
    problems = review(obj, held, profile, now())
    if not problems:
        return Answer(True)
    return Answer(
        False,
        f"{obj.get('kind')} {meta.get('name')} refused ({problems.reason}): {problems.message}",
        problems.reason,
        tuple((e.path, e.message) for e in problems.errors),
    )


def admission_review(body: Mapping[str, Any], around: Around, profile: RuntimeProfile) -> dict[str, Any]:
    """The AdmissionReview to send back for the one received."""
    request = body.get("request") or {}
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": answer(request, around, profile).response(str(request.get("uid") or "")),
    }
