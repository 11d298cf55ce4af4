"""Writing over a workload other tools also write (kubectl, Argo CD, Flux): an update through the portal, the API or
the CLI changes what its document says and nothing else.

Two things a full replace would otherwise change behind the user's back: the portal's defaults (``spec.team`` and
``spec.costCenter``, filled in from the project) added to an object whose spec never had them, which is a new
generation, a new revision and new pods for a document applied again unchanged; and the labels and annotations
another field manager owns (``kubectl.kubernetes.io/last-applied-configuration``, a GitOps tool's tracking label),
dropped because the document does not repeat them. Ownership is read from the object's ``managedFields``, as
server-side apply keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

DEFAULTED = ("team", "costCenter")
"""``spec`` fields the portal fills in from the project when the document leaves them out."""


def defaults_as_live(manifest: dict[str, Any], asked: Iterable[str], live: Mapping[str, Any]) -> None:
    """An update keeps each portal default as the live object has it: absent when the live spec lacks it and the
    document did not ask for it, the live value when the document left it out."""
    spec, have, sent = manifest.get("spec"), live.get("spec") or {}, set(asked)
    if not isinstance(spec, dict):
        return
    for key in DEFAULTED:
        if key in sent:
            continue
        if key in have:
            spec[key] = have[key]
        else:
            spec.pop(key, None)


def foreign_keys(live: Mapping[str, Any], manager: str, where: str) -> set[str]:
    """The ``metadata.<where>`` keys (labels, annotations) that a field manager other than ``manager`` owns."""
    owned: set[str] = set()
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        if not isinstance(entry, Mapping) or entry.get("manager") == manager:
            continue
        fields = (((entry.get("fieldsV1") or {}).get("f:metadata") or {}).get(f"f:{where}")) or {}
        owned |= {key.removeprefix("f:") for key in fields if key.startswith("f:")}
    return owned


def keep_foreign_metadata(live: Mapping[str, Any], meta: dict[str, Any], manager: str) -> None:
    """Labels and annotations another manager owns, which the document does not mention, stay as they are."""
    current = live.get("metadata") or {}
    for where in ("labels", "annotations"):
        theirs = {
            key: value
            for key, value in (current.get(where) or {}).items()
            if key in foreign_keys(live, manager, where) and key not in (meta.get(where) or {})
        }
        if theirs:
            meta[where] = {**(meta.get(where) or {}), **theirs}
