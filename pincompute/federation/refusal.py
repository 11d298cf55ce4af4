"""A member that refuses a workload's pods (its Pod Security admission, its quota): shown on the host object, and
no quota held for it until its spec changes.

A member's operator reports a shard whose pods cannot be created as ``Refused`` (``status.derive_status``); the
host's aggregation turns that into ``MemberRefused`` on the host object with the member's message, stamped with the
host generation it was seen at (``status.aggregate_shards``). Admission then holds no claim for that generation:
``Admitted=False``, reason ``MemberRefused``, so the grant is free for what can run. A new spec (a new generation)
is admitted afresh and tried again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pincompute.status import MEMBER_REFUSED, condition_of

REASON = "MemberRefused"


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
