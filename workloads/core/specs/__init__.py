"""Typed specs for the eight PinCompute kinds: ``validate`` reports every error, ``parse`` builds.

The registry below is the single source for validation, CRD generation (crds.py) and translation
dispatch, so a kind cannot be half-added.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workloads.core import API_VERSION
from workloads.core.errors import FieldError, SpecInvalid
from workloads.core.specs import apps, batch
from workloads.core.specs import checks as c
from workloads.core.specs.apps import Ingress, Metric, Persistence, PinApp, PinPod, PinScaler, PinterestService
from workloads.core.specs.batch import PinterestCronJob, PinterestDaemon, PinterestJobSet, PinterestTrainingJob
from workloads.core.specs.common import Container, Operations, PodFields, WorkloadMeta
from workloads.core.specs.schema import Field, MapOf, Obj, Str, obj

Workload = (PinPod | PinApp | PinScaler | PinterestService | PinterestJobSet | PinterestCronJob
            | PinterestDaemon | PinterestTrainingJob)


@dataclass(frozen=True)
class KindDef:
    kind: str
    plural: str
    short_name: str
    schema: Obj
    check: Callable[[Mapping[str, Any], list[FieldError]], None]
    build: Callable[[Mapping[str, Any]], Any]
    scalable: bool = False
    runs_pods: bool = True


KINDS: dict[str, KindDef] = {k.kind: k for k in (
    KindDef("PinPod", "pinpods", "ppod", apps.PINPOD_SPEC, apps.check_pinpod, apps.build_pinpod),
    KindDef("PinApp", "pinapps", "papp", apps.PINAPP_SPEC, apps.check_pinapp, apps.build_pinapp,
            scalable=True),
    KindDef("PinScaler", "pinscalers", "pscaler", apps.PINSCALER_SPEC, apps.check_pinscaler,
            apps.build_pinscaler, runs_pods=False),
    KindDef("PinterestService", "pinterestservices", "psvc", apps.PINTERESTSERVICE_SPEC,
            apps.check_pinterestservice, apps.build_pinterestservice, scalable=True),
    KindDef("PinterestJobSet", "pinterestjobsets", "pjobset", batch.PINTERESTJOBSET_SPEC,
            batch.check_pinterestjobset, batch.build_pinterestjobset),
    KindDef("PinterestCronJob", "pinterestcronjobs", "pcron", batch.PINTERESTCRONJOB_SPEC,
            batch.check_pinterestcronjob, batch.build_pinterestcronjob),
    KindDef("PinterestDaemon", "pinterestdaemons", "pdaemon", batch.PINTERESTDAEMON_SPEC,
            batch.check_pinterestdaemon, batch.build_pinterestdaemon),
    KindDef("PinterestTrainingJob", "pinteresttrainingjobs", "ptrain", batch.PINTERESTTRAININGJOB_SPEC,
            batch.check_pinteresttrainingjob, batch.build_pinteresttrainingjob),
)}

_METADATA = obj(
    Field("name", Str(checks=(c.workload_name,)), required=True),
    Field("namespace", Str(checks=(c.dns_label,))),
    Field("labels", MapOf(values=Str(checks=(c.label_value,)), key_check=c.label_key)),
    open=True,  # uid, generation, annotations, managedFields... belong to the apiserver
)
_TOP_LEVEL = ("apiVersion", "kind", "metadata", "spec", "status")


def validate(manifest: Any) -> list[FieldError]:
    """Every problem in the manifest at once, each with a field path and a sentence; [] when valid."""
    if not isinstance(manifest, dict):
        return [FieldError("", "a workload manifest must be an object")]
    errors: list[FieldError] = []
    for key in manifest:
        if key not in _TOP_LEVEL:
            errors.append(FieldError(str(key), f"unknown field {key!r}; allowed: {', '.join(_TOP_LEVEL)}"))
    if manifest.get("apiVersion") != API_VERSION:
        errors.append(FieldError("apiVersion", f"must be {API_VERSION}, got {manifest.get('apiVersion')!r}"))
    _METADATA.check(manifest.get("metadata"), "metadata", errors)
    kind = manifest.get("kind")
    definition = KINDS.get(kind) if isinstance(kind, str) else None
    if definition is None:
        errors.append(FieldError("kind", f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}"))
        return errors
    spec = manifest.get("spec")
    if spec is None:
        errors.append(FieldError("spec", "is required"))
        return errors
    definition.schema.check(spec, "spec", errors)
    if isinstance(spec, dict):
        definition.check(spec, errors)
    return _unique(errors)


def parse(manifest: Any) -> Workload:
    """Validated, typed workload; raises SpecInvalid carrying every FieldError."""
    errors = validate(manifest)
    if errors:
        raise SpecInvalid(errors)
    result: Workload = KINDS[manifest["kind"]].build(manifest)
    return result


def _unique(errors: list[FieldError]) -> list[FieldError]:
    seen: set[FieldError] = set()
    return [e for e in errors if not (e in seen or seen.add(e))]  # type: ignore[func-returns-value]


__all__ = ["KINDS", "Container", "Ingress", "KindDef", "Metric", "Operations", "Persistence", "PinApp",
           "PinPod", "PinScaler", "PinterestCronJob", "PinterestDaemon", "PinterestJobSet", "PinterestService",
           "PinterestTrainingJob", "PodFields", "Workload", "WorkloadMeta", "parse", "validate"]
