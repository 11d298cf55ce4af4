"""Keep each accepted spec of a host object as a ControllerRevision (``federation.revisions``)."""

from __future__ import annotations

from typing import Any

from pincompute.errors import Conflict
from pincompute.federation.revisions import revision_manifest, revision_name, to_prune
from pincompute.operator.federation.host import REVISION, HostRuntime


def ensure_revision(host: HostRuntime, obj: dict[str, Any], *, renumber: bool = True) -> str:
    """The current spec's revision, created (or, for a spec accepted before, renumbered as the newest when
    ``renumber``), and the history beyond ``revisions.HISTORY`` pruned. Returns its name.

    Only admission renumbers (a rollback to an earlier spec is a new revision when it is admitted): the
    propagator passes ``renumber=False``, since the spec it applies may be the previous admitted one while a
    newer admission's status is still on its way, and renumbering that would make every change three revisions."""
    meta = obj["metadata"]
    kind, name, namespace = str(obj["kind"]), str(meta["name"]), str(meta["namespace"])
    current = revision_name(kind, name, obj.get("spec") or {})
    existing = host.revisions(kind, name, namespace)
    uid = str(meta.get("uid"))
    mine = [r for r in existing if any(ref.get("uid") == uid for ref in r["metadata"].get("ownerReferences") or [])]
    newest = max((int(r.get("revision") or 0) for r in mine), default=0)
    found = next((r for r in mine if r["metadata"]["name"] == current), None)
    if found is not None and (not renumber or int(found.get("revision") or 0) == newest):
        return current
    manifest = revision_manifest(obj, newest + 1)
    try:
        result = host.kube.apply(manifest, REVISION)
    except Conflict:
        result = host.kube.get(REVISION, namespace, current)
    host.remember(result)
    for stale in to_prune([*mine, result], current):
        host.kube.delete(REVISION, namespace, stale)
    return current
