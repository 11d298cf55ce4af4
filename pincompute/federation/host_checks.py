"""What the host refuses to admit whoever wrote the object (the portal, kubectl, a GitOps pipeline): a spec the
library does not accept, and a workload naming another project than the one its namespace belongs to.

Pure functions over the object and the namespace's ``ProjectQuota`` (the host's record of which project a
namespace is: ``spec.project`` of the one quota object the portal writes there, ``tenancy.project_quota_manifest``),
so the federation's admission and a host admission webhook judge with the same code. Each problem is a
``FieldError`` with the path a person fixes; ``verdict_of`` words them as an ``Admitted=False`` condition.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.errors import FieldError
from pincompute.specs import validate

INVALID_SPEC = "InvalidSpec"
PROJECT_MISMATCH = "ProjectMismatch"
SHOWN = 5
"""Problems spelled out in a condition's message; the rest are counted."""
PROJECT_MISMATCH_MESSAGE = (
    "names project {named!r}, but namespace {namespace} belongs to project {owner!r}: a workload is admitted only "
    "against the grant of the project whose namespace holds it"
)
"""``spec.project``'s sentence here and in the host's ValidatingAdmissionPolicy (``host_policy``)."""


@dataclass(frozen=True)
class HostProblems:
    """Why the host will not admit an object (empty: nothing against it); ``reason`` for its condition."""

    reason: str
    errors: tuple[FieldError, ...]

    def __bool__(self) -> bool:
        return bool(self.errors)

    @property
    def message(self) -> str:
        shown = "; ".join(str(e) for e in self.errors[:SHOWN])
        more = len(self.errors) - SHOWN
        return shown + (f"; and {more} more" if more > 0 else "")


def namespace_project(quota: Mapping[str, Any] | None) -> str:
    """The project a host namespace belongs to: its ``ProjectQuota``'s ``spec.project`` ("" when it has none)."""
    return str(((quota or {}).get("spec") or {}).get("project") or "")


def project_problems(obj: Mapping[str, Any], quota: Mapping[str, Any] | None) -> list[FieldError]:
    """``spec.project`` against the project whose namespace holds the object (nothing to say without a quota
    object: such a namespace is no project's, and admission says so on its own)."""
    owner = namespace_project(quota)
    spec = obj.get("spec")
    named = spec.get("project") if isinstance(spec, Mapping) else None
    if not owner or named == owner:
        return []
    namespace = (obj.get("metadata") or {}).get("namespace")
    return [FieldError("spec.project", PROJECT_MISMATCH_MESSAGE.format(named=named, namespace=namespace, owner=owner))]


def host_problems(obj: Mapping[str, Any], quota: Mapping[str, Any] | None) -> HostProblems:
    """Everything the host holds against ``obj``: the project check first (it decides whose grant would be
    counted), then every error of the library's validation with its field path."""
    mismatch = project_problems(obj, quota)
    if mismatch:
        return HostProblems(PROJECT_MISMATCH, tuple(mismatch))
    return HostProblems(INVALID_SPEC, tuple(validate(dict(obj))))


def verdict_message(problems: HostProblems, *, admitted_generation: int | None = None) -> str:
    """The condition message: what is wrong, and (for an admitted workload's change) what keeps running."""
    lead = "not admitted" if admitted_generation is None else "the change is not admitted"
    tail = "" if admitted_generation is None else f" (generation {admitted_generation} keeps running)"
    return f"{lead}{tail}: {problems.message}"
