"""What a submission would change of the live workload: the object the write would make, whether that is a creation,
a change or nothing (kubectl's created, configured, unchanged), and the field diff of the spec and of the objects
the members would get. Part of the preview service (``workloads.preview``), which the pages, the API and the CLI's
``apply --dry-run=server`` and ``diff`` share.

The live object is a point read of the host, as the write itself makes one: the host cache drops ``managedFields``
(which decide the labels and annotations an update keeps: ``workloads.coexist``) and may not hold a write made a
moment ago, so a preview from it could call an unchanged re-apply "configured". When the host does not answer, the
cache's copy stands in and the preview says so.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from base.errors import NotFound, Unavailable
from pincompute.errors import ServiceError
from pincompute.federation.revisions import Change, spec_changes
from pincompute.placement import Placement
from pincompute.translate import translate
from pincompute.translate.common import object_key
from workloads import host, submission
from workloads.documents import editable

Action = Literal["created", "configured", "unchanged"]
ACTIONS: tuple[Action, ...] = ("created", "configured", "unchanged")


@dataclass(frozen=True)
class Outcome:
    """``manifest``: what the write would make (over ``live`` when it exists); ``action``: what that is."""

    action: Action
    manifest: dict[str, Any]
    live: dict[str, Any] | None

    @property
    def document(self) -> dict[str, Any]:
        """The object the write would make, as a user edits it (``workloads.documents.editable``)."""
        return editable(self.manifest)

    @property
    def live_document(self) -> dict[str, Any] | None:
        return editable(self.live) if self.live is not None else None


@dataclass(frozen=True)
class ObjectChange:
    key: str  # "Deployment web-local-1a"
    state: str  # "added", "removed", "changed"
    changes: list[Change] = field(default_factory=list)


@dataclass(frozen=True)
class EditDiff:
    version: str
    spec: list[Change]
    objects: list[ObjectChange]
    stale: str = ""  # the version edited is not the live one


def live_object(
    kind: str, namespace: str, name: str, cached: dict[str, Any] | None
) -> tuple[dict[str, Any] | None, str]:
    """The live object (None: absent) and, when the host did not answer and ``cached`` stands in, why."""
    try:
        return host.get(kind, namespace, name), ""
    except NotFound:
        return None, ""
    except Unavailable as exc:
        said = (
            f"The host did not answer ({exc.message}): created, configured or unchanged and the changes are judged "
            "against the portal's cached copy, which may lag and does not know which labels other tools own."
        )
        return cached, said


def outcome_of(manifest: dict[str, Any], asked: Sequence[str], live: dict[str, Any] | None) -> Outcome:
    """What writing the completed ``manifest`` would make and do; ``asked``: the spec keys the document sent."""
    if live is None:
        return Outcome("created", manifest, None)
    written = copy.deepcopy(manifest)
    submission.written_over(written, list(asked), live)
    return Outcome("unchanged" if submission.holds(live, written) else "configured", written, live)


def edit_diff(
    live: dict[str, Any], manifest: dict[str, Any], shards: Sequence[Placement], target: Any, version: str | None
) -> EditDiff:
    """The spec's changes and the generated objects' on each shard; ``version``: the one the edit started from."""
    live_version = host.version_of(live)
    stale = ""
    if version and version != live_version:
        stale = f"You edited version {version}; the live version is {live_version}: submitting would be refused."
    objects: list[ObjectChange] = []
    for shard in shards:
        try:
            before = {object_key(o): o for o in translate(live, submission.profile(), shard, target=target)}
            after = {object_key(o): o for o in translate(manifest, submission.profile(), shard, target=target)}
        except ServiceError:
            continue
        for key in sorted(set(before) | set(after)):
            label = f"{key[1]} {key[3]}" + (f" on {shard.cluster}" if len(shards) > 1 else "")
            if key not in before:
                objects.append(ObjectChange(label, "added"))
            elif key not in after:
                objects.append(ObjectChange(label, "removed"))
            else:
                changes = spec_changes(_comparable(before[key]), _comparable(after[key]), path="")
                if changes:
                    fixed = [Change(c.path.lstrip("."), c.before, c.after) for c in changes]
                    objects.append(ObjectChange(label, "changed", fixed))
    return EditDiff(live_version, spec_changes(live.get("spec"), manifest.get("spec")), objects, stale)


def _comparable(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in ("status",)}
