"""The Pod Security Standards, checked at submission on the pods translation will make.

The members' namespaces enforce the project's level with Pod Security admission, but there a refused pod surfaces
late and far away (a Deployment that never gets pods). So the workload is translated as a member would (the runtime
profile's containers and volumes included, ``spec.operations`` aside: a stopped workload may start later), every
pod template is checked with the controls of its level (``baseline``, ``restricted``; ``privileged`` allows all), and
each finding points back at the field the user wrote: ``spec.template.containers[0].securityContext.privileged``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from pincompute.errors import FieldError, SpecInvalid
from pincompute.kinds import KINDS
from pincompute.placement import Placement
from pincompute.podsecurity.baseline import BASELINE
from pincompute.podsecurity.controls import Control, Finding, Pod, as_list, as_map
from pincompute.podsecurity.restricted import RESTRICTED
from pincompute.podsecurity.user_paths import user_path
from pincompute.runtime import RuntimeProfile, load_profile
from pincompute.tenancy import PodSecurity
from pincompute.translate import translate

CHECK_PLACEMENT = Placement(cluster="pod-security-check")


def controls(level: PodSecurity) -> tuple[Control, ...]:
    """The controls a level enforces, a restricted control replacing the baseline one it overrides."""
    if level is PodSecurity.PRIVILEGED:
        return ()
    if level is PodSecurity.BASELINE:
        return BASELINE
    replaced = {check for control in RESTRICTED for check in control.overrides}
    return tuple(c for c in BASELINE if c.id not in replaced) + RESTRICTED


def evaluate(pod: Pod, level: PodSecurity) -> list[tuple[Control, Finding]]:
    """Every finding of ``level``'s controls on one native pod, with the control that made it."""
    return [(control, finding) for control in controls(level) for finding in control.check(pod)]


def pod_security_violations(
    manifest: Mapping[str, Any], level: PodSecurity, profile: RuntimeProfile | None = None
) -> list[FieldError]:
    """What ``level`` refuses in a valid workload manifest, each at the field the user wrote and naming the rule:
    ``restricted: ... must be RuntimeDefault or Localhost (Pod Security Standard 'Seccomp')``. [] for a manifest
    validation refuses (validation reports that)."""
    if level is PodSecurity.PRIVILEGED:
        return []
    errors: dict[FieldError, None] = {}
    for pod in translated_pods(manifest, profile or load_profile()):
        for control, finding in evaluate(pod, level):
            path, whose = user_path(manifest, pod, finding.path)
            said = f"{whose}{_subject(finding.path)} {finding.detail}"
            message = f"{control.level.value}: {said} (Pod Security Standard {control.name!r})"
            errors[FieldError(path, message)] = None
    return list(errors)


def _subject(native: str) -> str:
    """The field a message names: ``seccompProfile.type`` for ``spec.containers[0].securityContext.seccompProfile.type``
    (the part after ``securityContext``, else after the container or volume)."""
    for marker in ("securityContext.", "]."):
        if marker in native:
            return native.rsplit(marker, 1)[1]
    return native.split(".", 1)[-1]


def translated_pods(manifest: Mapping[str, Any], profile: RuntimeProfile) -> list[Pod]:
    """The pods (and pod templates) a member gets for the manifest, running (``operations`` dropped)."""
    info = KINDS.get(str(manifest.get("kind")))
    if info is None or not info.runs_pods:
        return []
    running = copy.deepcopy(dict(manifest))
    spec = running.get("spec")
    if isinstance(spec, dict):
        spec.pop("operations", None)
    try:
        objects = translate(running, profile, CHECK_PLACEMENT)
    except SpecInvalid:
        return []
    return [pod for obj in objects for pod in _pods(obj)]


def _pods(value: object) -> Iterator[Pod]:
    """Every ``{metadata, spec: {containers}}`` inside a native object: a Pod, a template, a job's template."""
    if isinstance(value, Mapping):
        spec = value.get("spec")
        if isinstance(spec, Mapping) and isinstance(spec.get("containers"), list):
            yield Pod(as_map(as_map(value.get("metadata")).get("annotations")), spec)
            return
        for child in value.values():
            yield from _pods(child)
    else:
        for item in as_list(value):
            yield from _pods(item)


__all__ = ["Control", "Finding", "Pod", "controls", "evaluate", "pod_security_violations", "translated_pods"]
