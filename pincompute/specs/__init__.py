"""Typed specs for the eight PinCompute kinds: ``validate`` reports every error, ``parse`` builds.

Each kind's schema, cross-field check and typed builder are keyed by the one kind registry
(``pincompute.kinds``); together they drive validation, CRD generation (crds.py) and translation
dispatch, so a kind cannot be half-added.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pincompute import API_VERSION
from pincompute.errors import FieldError, SpecInvalid
from pincompute.kinds import KINDS as KIND_REGISTRY
from pincompute.kinds import KindInfo
from pincompute.ownership import check_annotations as check_ownership
from pincompute.specs import apps, batch, scaler
from pincompute.specs import checks as c
from pincompute.specs.apps import Ingress, Persistence, PinApp, PinPod, PinterestService
from pincompute.specs.batch import PinterestCronJob, PinterestDaemon, PinterestJobSet, PinterestTrainingJob
from pincompute.specs.common import Container, Operations, PodFields, WorkloadMeta
from pincompute.specs.metadata import Annotations
from pincompute.specs.metadata import label_key as metadata_label_key
from pincompute.specs.scaler import Metric, PinScaler
from pincompute.specs.schema import Field, MapOf, Obj, Str, obj

Workload = (
    PinPod
    | PinApp
    | PinScaler
    | PinterestService
    | PinterestJobSet
    | PinterestCronJob
    | PinterestDaemon
    | PinterestTrainingJob
)


Check = Callable[[Mapping[str, Any], list[FieldError]], None]
"""Cross-field rules on the raw ``spec`` (types may still be wrong); appends to the error list."""
Build = Callable[[Mapping[str, Any]], Workload]
"""The typed workload from a manifest that ``validate`` accepted."""


@dataclass(frozen=True)
class KindDef:
    """The spec-specific half of a kind; names, plural, tier and the rest live in ``kinds.KINDS``."""

    info: KindInfo
    schema: Obj
    check: Check
    build: Build

    @property
    def kind(self) -> str:
        return self.info.kind


_SPECS: dict[str, tuple[Obj, Check, Build]] = {
    "PinPod": (apps.PINPOD_SPEC, apps.check_pinpod, apps.build_pinpod),
    "PinApp": (apps.PINAPP_SPEC, apps.check_pinapp, apps.build_pinapp),
    "PinScaler": (scaler.PINSCALER_SPEC, scaler.check_pinscaler, scaler.build_pinscaler),
    "PinterestService": (apps.PINTERESTSERVICE_SPEC, apps.check_pinterestservice, apps.build_pinterestservice),
    "PinterestJobSet": (batch.PINTERESTJOBSET_SPEC, batch.check_pinterestjobset, batch.build_pinterestjobset),
    "PinterestCronJob": (batch.PINTERESTCRONJOB_SPEC, batch.check_pinterestcronjob, batch.build_pinterestcronjob),
    "PinterestDaemon": (batch.PINTERESTDAEMON_SPEC, batch.check_pinterestdaemon, batch.build_pinterestdaemon),
    "PinterestTrainingJob": (
        batch.PINTERESTTRAININGJOB_SPEC,
        batch.check_pinteresttrainingjob,
        batch.build_pinteresttrainingjob,
    ),
}
KINDS: dict[str, KindDef] = {kind: KindDef(info, *_SPECS[kind]) for kind, info in KIND_REGISTRY.items()}
"""Spec definitions by kind, in registry order."""

METADATA = obj(
    Field("name", Str(checks=(c.workload_name,)), required=True),
    Field("namespace", Str(checks=(c.dns_label,))),
    Field("labels", MapOf(values=Str(checks=(c.label_value,)), key_check=metadata_label_key)),
    Field("annotations", Annotations()),  # checked as the apiserver does: preview, dry run and submit agree
    open=True,  # uid, generation, managedFields... belong to the apiserver
)
_TOP_LEVEL = ("apiVersion", "kind", "metadata", "spec", "status")


def validate(manifest: object) -> list[FieldError]:
    """Every problem in the manifest at once, each with a field path and a sentence; [] when valid."""
    if not isinstance(manifest, dict):
        return [FieldError("", "a workload manifest must be an object")]
    errors: list[FieldError] = []
    for key in manifest:
        if key not in _TOP_LEVEL:
            errors.append(FieldError(str(key), f"unknown field {key!r}; allowed: {', '.join(_TOP_LEVEL)}"))
    if manifest.get("apiVersion") != API_VERSION:
        errors.append(FieldError("apiVersion", f"must be {API_VERSION}, got {manifest.get('apiVersion')!r}"))
    METADATA.check(manifest.get("metadata"), "metadata", errors)
    metadata = manifest.get("metadata")
    if isinstance(metadata, dict):  # the on-call contact and links (pincompute.ownership)
        check_ownership(metadata.get("annotations"), "metadata.annotations", errors)
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


def parse(manifest: object) -> Workload:
    """Validated, typed workload; raises SpecInvalid carrying every FieldError."""
    errors = validate(manifest)
    if errors or not isinstance(manifest, dict):  # validate() refuses anything but a dict
        raise SpecInvalid(errors)
    return KINDS[manifest["kind"]].build(manifest)


def _unique(errors: list[FieldError]) -> list[FieldError]:
    """First occurrence of each error, in order."""
    return list(dict.fromkeys(errors))


__all__ = [
    "KINDS",
    "Container",
    "Ingress",
    "KindDef",
    "Metric",
    "Operations",
    "Persistence",
    "PinApp",
    "PinPod",
    "PinScaler",
    "PinterestCronJob",
    "PinterestDaemon",
    "PinterestJobSet",
    "PinterestService",
    "PinterestTrainingJob",
    "PodFields",
    "Workload",
    "WorkloadMeta",
    "parse",
    "validate",
]
