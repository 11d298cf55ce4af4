"""Submitting a workload: the one service the pages, the API and the CLI call (seed 000: the submission
service authenticates, enforces quota and validates before anything reaches a cluster).

In order: authorize (a developer or owner of an active project); complete the document for the project
(namespace, ``spec.project``, team and cost center) and refuse one that names another; validate it (the
core's spec checks, every error with its field path); refuse what the project's policy does not allow
(``pincompute.policy``, the function the host's admission webhook judges by too) and what its pod security level
does not allow; refuse at once what can never fit the project's grant (with the numbers), and an update that grows an
admitted workload beyond the room the grant has now (``workloads.growth``); then create or update the one object
on the host, audited. Nothing is written when any step refuses; the federation
does the rest (admission, placement, propagation).
"""

from __future__ import annotations

import copy
import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from base import audit, metrics
from base.api import DATABASE_DOWN
from base.errors import Conflict, Forbidden, Invalid, NotFound, Unavailable
from configs.services import held_keys
from pincompute.config_refs import references, unresolved
from pincompute.errors import FieldError, SpecInvalid
from pincompute.federation.admission import claim_of
from pincompute.federation.host_review import never_fits
from pincompute.grants import Allocation
from pincompute.kinds import KINDS
from pincompute.labels import FEDERATION_FINALIZER, REPLACE_PLACEMENT_ANNOTATION
from pincompute.ownership import LINKS_ANNOTATION, ONCALL_ANNOTATION
from pincompute.podsecurity import pod_security_violations
from pincompute.policy import policy_violations
from pincompute.runtime import RuntimeProfile, load_profile
from pincompute.specs import Workload, parse, validate
from pincompute.specs.metadata import TOTAL_ANNOTATION_SIZE
from pincompute.tenancy import PodSecurity, admission_grant, label_value
from projects.access import require_role
from projects.grants import grants_of
from projects.models import Project, ProjectRole
from projects.policy import policy_of
from workloads import host
from workloads.coexist import defaults_as_live, keep_foreign_metadata
from workloads.conflicts import raced, retried_on_conflict
from workloads.documents import REQUEST_ANNOTATION
from workloads.growth import growth_checked

log = logging.getLogger(__name__)
WRITE_ROLES = (ProjectRole.OWNER, ProjectRole.DEVELOPER)
RESERVED_PREFIX = "pincompute.io/"
USER_ANNOTATIONS = frozenset({REPLACE_PLACEMENT_ANNOTATION, ONCALL_ANNOTATION, LINKS_ANNOTATION})
_SERVER_FIELDS = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "finalizers",
    "ownerReferences",
    "selfLink",
)
_profile: RuntimeProfile | None = None


class NeverFits(Forbidden):
    """The workload asks more than its project's whole grant in its tier: it could never be admitted."""

    code = "quota_exceeded"


@dataclass(frozen=True)
class Accepted:
    """What was written to the host (or would be, for a dry run), and whether it was new."""

    manifest: dict[str, Any]
    workload: Workload
    created: bool
    dry_run: bool = False

    @property
    def version(self) -> str:
        return host.version_of(self.manifest)


def profile() -> RuntimeProfile:
    global _profile
    if _profile is None:
        _profile = load_profile()
    return _profile


def complete(project: Project, document: dict[str, Any]) -> dict[str, Any]:
    """The host object ``document`` describes in ``project``: namespace, ``spec.project``, team and cost center
    filled in, server-owned fields and status dropped. Naming another project or namespace is refused."""
    manifest = copy.deepcopy(document)
    manifest.pop("status", None)
    meta = manifest.get("metadata")
    if not isinstance(meta, dict):
        return manifest  # validation names it
    errors: list[FieldError] = []
    namespace = meta.get("namespace")
    if namespace not in (None, "", project.namespace):
        errors.append(FieldError("metadata.namespace", f"must be {project.namespace} (project {project.name})"))
    for field in _SERVER_FIELDS:
        meta.pop(field, None)
    if isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(REQUEST_ANNOTATION, None)  # the platform's, sent back by an edit
    meta["namespace"] = project.namespace
    for where in ("labels", "annotations"):
        for key in meta.get(where) or {}:
            if str(key).startswith(RESERVED_PREFIX) and not (where == "annotations" and key in USER_ANNOTATIONS):
                errors.append(FieldError(f"metadata.{where}.{key}", "pincompute.io/ keys are the platform's"))
    spec = manifest.get("spec")
    if isinstance(spec, dict):
        if spec.get("project") not in (None, "", project.name):
            errors.append(FieldError("spec.project", f"must be {project.name}: the project you submit to"))
        spec["project"] = project.name
        if label_value(project.team):
            spec.setdefault("team", label_value(project.team))  # as the namespaces' team label spells it
        if project.cost_center:
            spec.setdefault("costCenter", project.cost_center)
    if errors:
        raise Invalid("The workload names something outside its project.", fields=errors)
    return manifest


def unresolved_references(project: Project, manifest: dict[str, Any]) -> list[FieldError]:
    """Each reference of the pods to a Secret, ConfigMap or key the project does not hold (a read of the host only
    when there are references)."""
    refs = references(manifest)
    if not refs:
        return []
    return unresolved(refs, held_keys(project, {r.kind for r in refs}))


def check(project: Project, manifest: dict[str, Any]) -> Workload:
    """The typed workload, or the reason it is refused (400 spec errors or policy, 403 never fits)."""
    errors = validate(manifest)
    if errors:
        raise SpecInvalid(errors)
    against_policy = policy_violations(policy_of(project), manifest)
    if against_policy:
        raise Invalid(f"Refused by the policy of project {project.name}.", fields=against_policy)
    violations = pod_security_violations(manifest, PodSecurity(project.pod_security), profile())
    if violations:
        raise Invalid(
            f"Refused by the pod security level of project {project.name} ({project.pod_security}).",
            fields=violations,
        )
    workload = parse(manifest)
    claim = claim_of(workload, timezone.now(), profile=profile())
    tier = workload.meta.tier
    grant = admission_grant(grants_of(project).get(tier, Allocation()))
    beyond = never_fits(tier, grant, claim.request)
    if beyond:
        raise NeverFits(
            "It can never be admitted, even with nothing else running: " + "; ".join(e.message for e in beyond),
            fields=beyond,
        )
    return workload


@metrics.counted(metrics.SUBMISSIONS, outcome=metrics.submission_outcome)
def submit_workload(
    project: Project,
    document: dict[str, Any],
    *,
    actor: Any,
    version: str | None = None,
    dry_run: bool = False,
    create_only: bool = False,
    must_exist: bool = False,
    action: str = "workload.update",
    summary: str = "",
) -> Accepted:
    """Create or update the workload ``document`` describes in ``project`` on the host.

    ``version`` (a resourceVersion, the API's If-Match) makes an update conditional: a stale one is a 409
    naming both versions. ``create_only``: an existing object of that name is a 409 (the form's "New");
    ``must_exist`` (any If-Match): a missing one is a 409, never created (it may have been deleted meanwhile).
    ``action`` and ``summary``: the audit row of an update (a rollback is one, ``workloads.rollback``)."""
    require_role(project, actor, WRITE_ROLES)
    if not project.is_active:
        raise Conflict(f"Project {project.name} is archived: it takes no new workloads.")
    manifest = complete(project, document)
    workload = check(project, manifest)
    refused = unresolved_references(project, manifest)
    if refused:
        raise Invalid(f"It uses Secrets or ConfigMaps project {project.name} does not hold.", fields=refused)
    kind, name = manifest["kind"], manifest["metadata"]["name"]
    asked = list(document["spec"]) if isinstance(document.get("spec"), dict) else []
    if create_only and not dry_run:
        return _create(project, manifest, workload, actor=actor)  # the host's own 409 says it exists: one round trip
    live = _live(kind, project.namespace, name)
    if live is not None and create_only:
        raise Conflict(f"{kind} {name} already exists in project {project.name}.")
    if live is None and must_exist:
        raise Conflict(
            f"{kind} {name} does not exist in project {project.name}: If-Match names a version of a workload that "
            "is gone (deleted meanwhile?); send the document without If-Match to create it.",
            fields=[FieldError("version", "no such workload")],
        )
    if live is not None:
        _still_at(live, version)
        written_over(manifest, asked, live)  # what a dry run shows is what the update would write
    if dry_run:
        return Accepted(manifest, workload, live is None, dry_run=True)
    if live is None:
        return _create(project, manifest, workload, actor=actor)
    reads = iter([live])  # the first attempt writes over the object just read; a retry reads it again
    sent: list[dict[str, Any]] = []  # the objects this request's replaces were conditional on

    def replace() -> tuple[dict[str, Any], dict[str, Any]]:
        current = next(reads, None) or _live(kind, project.namespace, name)
        if current is None:
            raise NotFound(f"No {kind} named {name} in project {project.name}: it was deleted meanwhile.")
        written_over(manifest, asked, current)
        if sent and holds(current, manifest):
            # An earlier replace of this request landed (its answer lost, the transport's resend then stale): it
            # is written, once; never a 409 against this request's own new version.
            return current, sent[0]
        _still_at(current, version)
        meta = manifest["metadata"]
        meta["resourceVersion"] = current["metadata"].get("resourceVersion")
        meta["finalizers"] = current["metadata"].get("finalizers") or []  # the federation's stays
        sent.append(current)
        with growth_checked(project, current, workload):
            return raced(lambda: host.replace(manifest)), current

    written, before = retried_on_conflict(replace)  # past the operator's and the federation's status writes
    spec = manifest.get("spec")
    record(project, action, kind, name, actor=actor, before=before.get("spec"), after=spec, summary=summary)
    return Accepted(written, workload, False)


def written_over(manifest: dict[str, Any], asked: list[str], live: dict[str, Any]) -> None:
    """``manifest`` as an update writes it over ``live`` (in place): the portal's defaults as the live object has
    them (``asked``: the spec keys the document sent), other managers' labels and annotations kept, and the
    create's request id. The preview compares the result with ``live`` (``holds``) to say "unchanged"."""
    defaults_as_live(manifest, asked, live)
    keep_foreign_metadata(live, manifest["metadata"], host.FIELD_MANAGER)
    _keep_mark(live, manifest["metadata"])


def holds(live: dict[str, Any], manifest: dict[str, Any]) -> bool:
    """Whether the live object already says what ``manifest`` does (spec, labels and annotations)."""
    meta, sent = live.get("metadata") or {}, manifest.get("metadata") or {}
    return live.get("spec") == manifest.get("spec") and all(
        (meta.get(where) or {}) == (sent.get(where) or {}) for where in ("labels", "annotations")
    )


def _still_at(live: dict[str, Any], version: str | None) -> None:
    """A caller who named a version (If-Match, the version an edit started from) is refused once the spec moved
    past it, both versions named; status and metadata writes do not move it."""
    if version and version != host.version_of(live):
        kind, name = live.get("kind"), (live.get("metadata") or {}).get("name")
        raise Conflict(
            f"{kind} {name} changed since you read it: you edited version {version}, "
            f"the live version is {host.version_of(live)}.",
            fields=[FieldError("version", f"is {host.version_of(live)}")],
        )


def _create(project: Project, manifest: dict[str, Any], workload: Workload, *, actor: Any) -> Accepted:
    kind, name = manifest["kind"], manifest["metadata"]["name"]
    # The federation's finalizer from the start (one round trip less on the way to running pods; the
    # federation adds it to objects created any other way).
    manifest["metadata"]["finalizers"] = [FEDERATION_FINALIZER]
    request = _marked(manifest["metadata"])
    try:
        with growth_checked(project, None, workload):  # a new PinScaler grows its admitted PinApp's claim
            written = host.create(manifest)
    except host.OutcomeUnknown as lost:
        written = _own_create(project, manifest, request, lost)
    except Conflict:
        raise Conflict(f"{kind} {name} already exists in project {project.name}.") from None
    record(project, "workload.create", kind, name, actor=actor, after=manifest.get("spec"))
    return Accepted(written, workload, True)


def _keep_mark(live: dict[str, Any], meta: dict[str, Any]) -> None:
    """The create's request id stays on the object through updates (users never send it: an apply of the same
    document must not change the object by dropping it), when the user's annotations leave room for it."""
    mark = ((live.get("metadata") or {}).get("annotations") or {}).get(REQUEST_ANNOTATION)
    if mark is not None:
        _annotate(meta, str(mark))


def _marked(meta: dict[str, Any]) -> str | None:
    """This create's request id, in ``REQUEST_ANNOTATION``; none when the user's annotations leave no room for it
    (they may fill Kubernetes' whole 256 KiB): then the spec read back tells."""
    request = uuid.uuid4().hex
    return request if _annotate(meta, request) else None


def _annotate(meta: dict[str, Any], request: str) -> bool:
    """``REQUEST_ANNOTATION`` set to ``request`` when the annotations leave room for it (Kubernetes' 256 KiB)."""
    annotations = meta.get("annotations") or {}
    used = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())
    if used + len(REQUEST_ANNOTATION) + len(request) > TOTAL_ANNOTATION_SIZE:
        return False
    meta["annotations"] = {**annotations, REQUEST_ANNOTATION: request}
    return True


def _own_create(
    project: Project, manifest: dict[str, Any], request: str | None, lost: host.OutcomeUnknown
) -> dict[str, Any]:
    """The object a create whose answer was lost wrote, read back (the answer it would have had): the one with this
    request's id (unmarked: the same spec, labels and annotations). Someone else's object of that name is the usual
    409; an absent one (the create may still be on its way) or a read that fails too leaves the outcome unknown: a
    503 saying so and how to check, never a second create."""
    kind, name = manifest["kind"], manifest["metadata"]["name"]
    unknown = Unavailable(
        f"Whether {kind} {name} was created in project {project.name} is unknown: the host's answer to the create "
        f"was lost ({lost.message}). Check whether it exists (GET /api/v1/projects/{project.name}/workloads/"
        f"{kind}/{name}/, or the workload list) before sending it again; a PUT of the same document is safe."
    )
    try:
        live = _live(kind, project.namespace, name)
    except Unavailable as exc:
        raise unknown from exc
    if live is None:
        raise unknown from lost
    if request is not None:
        ours = ((live.get("metadata") or {}).get("annotations") or {}).get(REQUEST_ANNOTATION) == request
    else:
        ours = holds(live, manifest)
    if not ours:
        raise Conflict(f"{kind} {name} already exists in project {project.name}.") from None
    return live


def record(
    project: Project,
    action: str,
    kind: str,
    name: str,
    *,
    actor: Any,
    before: Any = None,
    after: Any = None,
    summary: str = "",
) -> None:
    """The audit row of a write to a workload on the host (submissions and operations), made once the write landed.

    The database failing now must not turn a change that happened into an error for the caller (who would retry a
    create into a 409 or a restart into a second one): the row is written to the log instead, whole, at ERROR, for
    the audit to be completed from it."""
    try:
        audit.record(
            action,
            actor=actor,
            target_kind=kind,
            target_name=name,
            project=project.name,
            cluster=host.host_cluster().name,
            before=before,
            after=after,
            summary=summary,
        )
    except DATABASE_DOWN as exc:
        row = {"action": action, "actor": getattr(actor, "username", ""), "project": project.name, "kind": kind,
               "name": name, "before": before, "after": after}  # fmt: skip
        log.error("audit row not written (%s); the change was applied: %s", type(exc).__name__, json.dumps(row))


def _live(kind: str, namespace: str, name: str) -> dict[str, Any] | None:
    if kind not in KINDS:
        return None
    try:
        return host.get(kind, namespace, name)
    except NotFound:
        return None
