"""One project's admission pass: the core's ``admit`` over the host's workloads, written as conditions.

Runs under the project's admission key, which the work queue never hands to two workers at once, so
decisions of one project are serialized; each decides from the store, which already holds the previous
pass's writes (``HostRuntime.remember``), and every write is guarded by the object's resourceVersion.
A workload's claim is held from its admission until its host object is gone (its shards removed
first), so a deletion frees room only once its pods are on their way out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

from pincompute.errors import Conflict, CoreError, SpecInvalid
from pincompute.federation.admission import CONDITION, Claim, admit, claim_of, is_admitted
from pincompute.federation.refusal import admission_refused, current_refusal
from pincompute.operator.cluster import Key
from pincompute.operator.events import EventRecorder
from pincompute.operator.federation.host import HostRuntime
from pincompute.runtime import RuntimeProfile
from pincompute.specs import parse
from pincompute.status import condition_of, set_condition
from pincompute.tenancy import grants_of_quota

log = logging.getLogger(__name__)
NO_PROJECT_QUOTA = "NoProjectQuota"
CLAIM_CACHE = 100_000
WRITERS = 8
WRITE_ATTEMPTS = 3
SCHEDULED = "Scheduled"


def created_at(obj: Mapping[str, Any]) -> datetime:
    text = str((obj.get("metadata") or {}).get("creationTimestamp") or "1970-01-01T00:00:00Z")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Admitter:
    def __init__(
        self,
        host: HostRuntime,
        profile: RuntimeProfile,
        events: EventRecorder,
        enqueue: Callable[[Key], None],
        *,
        daemon_nodes: Callable[[], int],
        now: Callable[[], datetime],
    ) -> None:
        self.host, self.profile, self.events, self.enqueue = host, profile, events, enqueue
        self.daemon_nodes, self.now = daemon_nodes, now
        self._claims: dict[str, tuple[tuple[int, int], Claim | None]] = {}
        self.pool = ThreadPoolExecutor(WRITERS, thread_name_prefix="admission-write")

    def _claim(self, obj: dict[str, Any]) -> Claim | None:
        """The workload's claim, parsed once per (uid, generation, node count): a pass reads every workload
        of its project, and passes come with every change in it."""
        meta = obj["metadata"]
        nodes = self.daemon_nodes() if obj["kind"] == "PinterestDaemon" else 1
        stamp = (int(meta.get("generation") or 0), nodes)
        uid = str(meta.get("uid"))
        known = self._claims.get(uid)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            claim: Claim | None = claim_of(parse(obj), created_at(obj), profile=self.profile, node_count=nodes)
        except SpecInvalid:
            claim = None
        if len(self._claims) > CLAIM_CACHE:
            self._claims.clear()
        self._claims[uid] = (stamp, claim)
        return claim

    def run(self, namespace: str) -> int:
        """Decide and write; returns how many workloads changed admission."""
        objects = {f"{o['kind']}/{o['metadata']['name']}": o for o in self.host.workloads(namespace)}
        refused = {key: refusal for key, obj in objects.items() if (refusal := current_refusal(obj))}
        claims: dict[str, Claim] = {}
        for key, obj in objects.items():
            claim = self._claim(obj)
            if claim is not None and key not in refused:  # an invalid spec is never admitted (its reconcile says
                claims[key] = claim  # why), nor one a member refuses, until its spec changes
        quota = self.host.quota(namespace)
        grants = grants_of_quota(quota)
        admitted = [c for k, c in claims.items() if is_admitted(objects[k])]
        waiting = [
            c
            for k, c in claims.items()
            if not is_admitted(objects[k]) and not objects[k]["metadata"].get("deletionTimestamp")
        ]
        decision = admit(grants, admitted, waiting)
        writes = []
        for key, verdict in decision.verdicts.items():
            obj = objects[key]
            if obj["metadata"].get("deletionTimestamp"):
                continue
            wanted = verdict.condition()
            if quota is None and not verdict.admitted:
                wanted["reason"] = NO_PROJECT_QUOTA
                wanted["message"] = (
                    f"namespace {namespace} has no ProjectQuota: it is not an onboarded project's namespace on the "
                    "host, so nothing is granted here"
                )
            have = condition_of(obj, CONDITION)
            if not all(have.get(k) == v for k, v in wanted.items()):
                writes.append((obj, wanted))
        writes += self._refusals(objects, refused)
        # The decision is made; recording it is one write per workload, done in parallel. A write that
        # fails leaves a state the next pass decides from (what is recorded admitted holds its claim), so
        # the grant is never exceeded whichever writes land.
        outcomes = list(self.pool.map(lambda item: self._record(*item), writes))
        failures = [o for o in outcomes if isinstance(o, Exception)]
        changed = sum(1 for o in outcomes if o is True)
        if changed:
            log.info("%s: admission changed for %d workload(s)", namespace, changed)
        if failures:
            raise failures[0]
        return changed

    @staticmethod
    def _refusals(
        objects: Mapping[str, dict[str, Any]], refused: Mapping[str, Mapping[str, Any]]
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``Admitted=False`` (MemberRefused) for each workload a member refuses, where it is not written yet."""
        writes = []
        for key, refusal in refused.items():
            obj, wanted = objects[key], admission_refused(refusal)
            have = condition_of(obj, CONDITION)
            if not obj["metadata"].get("deletionTimestamp") and not all(have.get(k) == v for k, v in wanted.items()):
                writes.append((obj, wanted))
        return writes

    def _record(self, obj: dict[str, Any], wanted: dict[str, Any]) -> bool | Exception:
        """Write one verdict (a waiting workload is also ``Scheduled=False`` and ``Queued``); True when its
        admission flipped. A conflict from its own reconcile (finalizer, status) is retried on the fresh
        object as long as its spec and admission are what this pass decided from."""
        have = condition_of(obj, CONDITION)
        admitted = wanted["status"] == "True"
        for _attempt in range(WRITE_ATTEMPTS):
            generation = int(obj["metadata"].get("generation") or 0)
            now = self.now()
            conditions = set_condition(
                (obj.get("status") or {}).get("conditions") or [],
                CONDITION,
                wanted["status"],
                wanted["reason"],
                wanted["message"],
                generation,
                now,
            )
            status: dict[str, Any] = {"conditions": conditions}
            if not admitted:
                conditions[:] = set_condition(
                    conditions, SCHEDULED, "False", "NotAdmitted", wanted["message"], generation, now
                )
                status["phase"] = "Queued"
            try:
                self.host.patch_status(obj, status)
                break
            except Conflict as exc:
                meta = obj["metadata"]
                fresh = self.host.workload(str(obj["kind"]), str(meta.get("namespace")), str(meta["name"]))
                if (
                    fresh is None
                    or (fresh.get("metadata") or {}).get("generation") != meta.get("generation")
                    or condition_of(fresh, CONDITION) != have
                ):
                    return exc
                obj = fresh
            except CoreError as exc:
                return exc
        else:
            return Conflict(f"{obj['kind']}/{obj['metadata']['name']}: kept changing while its admission was written")
        flipped = (have.get("status") == "True") != admitted
        if flipped or not have:
            level = "Normal" if admitted else "Warning"
            self.events.record(obj, level, wanted["reason"], wanted["message"])
        meta = obj["metadata"]
        self.enqueue(Key(self.host.name, str(obj["kind"]), str(meta.get("namespace")), str(meta["name"])))
        return flipped or not have
