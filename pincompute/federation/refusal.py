"""A member that refuses a workload's pods (its Pod Security admission, its quota): shown on the host object, and
no quota held for it until its spec changes.

A member's operator reports a shard whose pods cannot be created (a Deployment's ``ReplicaFailure``) as ``Refused``
(``refused_condition``, from ``status.derive_status``); the host's aggregation turns that into ``MemberRefused`` on
the host object with the member's message (``member_refused``, from ``status.aggregate_shards``), stamped with the
host generation it was seen at. Admission then holds no claim for that generation: ``Admitted=False``, reason
``MemberRefused``, so the grant is free for what can run. A new spec (a new generation) is admitted and tried again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pincompute.conditions import condition_of, set_condition

REFUSED = "Refused"  # a member shard whose pods the member refuses to create (shard state and condition)
MEMBER_REFUSED = "MemberRefused"  # the host object's condition for it
REASON = "MemberRefused"  # the Admitted=False reason


def refused_condition(
    conditions: Sequence[Mapping[str, Any]], refused: Sequence[tuple[str, str]], generation: int, now: datetime
) -> list[dict[str, Any]]:
    """A member shard's conditions with ``Refused`` set from its refused objects ``(name, message)``: True with
    the reason (``PodSecurity`` or ``FailedCreate``), or False once said and no longer so."""
    message = "; ".join(f"{name}: {said}" for name, said in refused)
    if message:
        why = "PodSecurity" if "violates PodSecurity" in message else "FailedCreate"
        return set_condition(conditions, REFUSED, "True", why, message, generation, now)
    if any(c.get("type") == REFUSED for c in conditions):
        return set_condition(conditions, REFUSED, "False", "PodsCreated", "", generation, now)
    return [dict(c) for c in conditions]


def member_refused(reachable: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """``MemberRefused`` from the reachable members' shard conditions (by cluster, then type) when one reports a
    refusal; nothing otherwise (most workloads are never refused)."""
    refused = {
        c: by_type[REFUSED] for c, by_type in reachable.items() if by_type.get(REFUSED, {}).get("status") == "True"
    }
    if not refused:
        return []
    return [
        {
            "type": MEMBER_REFUSED,
            "status": "True",
            "reason": str(refused[min(refused)].get("reason") or "FailedCreate"),
            "message": "; ".join(f"member {c}: {refused[c].get('message', '')}" for c in sorted(refused)),
            "lastTransitionTime": max(str(r.get("lastTransitionTime") or "") for r in refused.values()),
        }
    ]


def current_refusal(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The host object's ``MemberRefused`` condition when it holds for the spec as it is now, else {}."""
    condition = condition_of(obj, MEMBER_REFUSED)
    return condition if is_current(condition, obj) else {}


def is_current(condition: Mapping[str, Any], obj: Mapping[str, Any]) -> bool:
    """A true ``MemberRefused`` seen at the object's present generation."""
    generation = int((obj.get("metadata") or {}).get("generation") or 0)
    return (
        condition.get("type") == MEMBER_REFUSED
        and condition.get("status") == "True"
        and int(condition.get("observedGeneration") or 0) == generation
    )


def admission_refused(refusal: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Admitted`` condition of a workload a member refused (the admitter's wanted condition)."""
    message = f"not admitted until its spec changes: {refusal.get('message', '')}"
    return {"type": "Admitted", "status": "False", "reason": REASON, "message": message}
