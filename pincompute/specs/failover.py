"""A workload's failover policy (``spec.failover``): when its shards leave a lost member, and by how much it may
run over its count while they do.

A member is lost when its apiserver stops answering, or it has no schedulable node, for longer than
``afterSeconds``; the federation then places the lost shards' replicas on other members that fit
(``federation.failover``). The lost member's pods may still be running (a partition, not a crash), so the moved
replicas count as a surge above ``spec.replicas`` until that member returns and its stale shard is removed:
``maxSurge`` bounds them. On by default for the kinds the registry marks (``KindInfo.fails_over``: PinApp and
PinterestService), off for the others (a job moved elsewhere starts again from the beginning).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pincompute.kinds import KINDS
from pincompute.specs import checks as c
from pincompute.specs.schema import Bool, Field, Int, IntOrStr, obj

DEFAULT_AFTER_SECONDS = 60
DEFAULT_MAX_SURGE: int | str = "100%"
MAX_AFTER_SECONDS = 86400


def failover_field() -> Field:
    return Field(
        "failover",
        obj(
            Field(
                "enabled",
                Bool(
                    description="Move the replicas of a lost member to other members; default on for PinApp and "
                    "PinterestService, off for the other kinds."
                ),
            ),
            Field(
                "afterSeconds",
                Int(
                    minimum=0,
                    maximum=MAX_AFTER_SECONDS,
                    description=f"How long a member stays unreachable or without a schedulable node before its "
                    f"replicas move; default {DEFAULT_AFTER_SECONDS}.",
                ),
            ),
            Field(
                "maxSurge",
                IntOrStr(
                    checks=(c.int_or_percent,),
                    description="Replicas that may run above the count while a lost member's pods may still run "
                    f"(a count or a percentage of the replicas); default {DEFAULT_MAX_SURGE}.",
                ),
            ),
            description="What happens to the replicas on a member that is lost: moved elsewhere after a grace "
            "period, within a surge.",
        ),
    )


@dataclass(frozen=True)
class FailoverPolicy:
    enabled: bool
    after_seconds: int = DEFAULT_AFTER_SECONDS
    max_surge: int | str = DEFAULT_MAX_SURGE

    def surge(self, replicas: int) -> int:
        """``maxSurge`` as a replica count for ``replicas`` (a percentage rounds up, like a Deployment's)."""
        if isinstance(self.max_surge, int):
            return self.max_surge
        percent = int(self.max_surge.rstrip("%"))
        return -(-replicas * percent // 100)


def failover_policy(kind: str, spec: Mapping[str, Any]) -> FailoverPolicy:
    """The policy ``spec`` names, with the kind's defaults for what it leaves out (a validated spec)."""
    info = KINDS.get(kind)
    given = spec.get("failover")
    raw: Mapping[str, Any] = given if isinstance(given, dict) else {}
    enabled = raw.get("enabled")
    return FailoverPolicy(
        bool(info is not None and info.fails_over) if enabled is None else bool(enabled),
        int(raw.get("afterSeconds", DEFAULT_AFTER_SECONDS)),
        raw.get("maxSurge", DEFAULT_MAX_SURGE),
    )
