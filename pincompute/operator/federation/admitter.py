"""One project's admission pass: the core's ``admit`` over the host's workloads, written as conditions.

Runs under the project's admission key, which the work queue never hands to two workers at once, so
decisions of one project are serialized; each decides from the store, which already holds the previous
pass's writes (``HostRuntime.remember``), and every write is guarded by the object's resourceVersion.
A workload's claim is held from its admission until its host object is gone (its shards removed
first), so a deletion frees room only once its pods are on their way out.

An admitted workload holds what its ``status.admission`` records (``federation.admission.Admission``), not
what its spec asks now: a newer generation is a change that ``admit`` admits at once when it grows nothing,
in its queue place when it grows and fits, and otherwise leaves waiting (``ChangePending``, with the numbers;
the propagator keeps the members on the admitted spec, whose ControllerRevision is written before the record
names it). The host's own checks (``federation.host_checks``: the spec valid, ``spec.project`` the project of
the namespace) come first: an object that fails them is never admitted, and an admitted one's change that
fails them is refused the same way, with every field path in the condition. A workload a member refuses at its
present generation (``federation.refusal``: ``MemberRefused``) holds nothing and waits for nothing until its spec
changes (``Admitted=False``, reason ``MemberRefused``): its release is written first, like a shrink's.

A PinApp's claim counts the reach of the PinScalers targeting it (``federation.autoscaling``): a scaler's new bounds
are a change of its PinApp's claim, and a scaler's record (which lets the propagator carry its bounds to the members)
is written only after the PinApp's record that holds them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pincompute.errors import Conflict, CoreError
from pincompute.federation.admission import (
    CHANGE_PENDING,
    CONDITION,
    Admission,
    Claim,
    ScalerBounds,
    Verdict,
    claim_of,
    created_at,
    is_admitted,
    recorded_admission,
)
from pincompute.federation.autoscaling import Steering, admit_scaled, autoscaled, bounds_of, reach
from pincompute.federation.host_checks import HostProblems, host_problems, namespace_project, verdict_message
from pincompute.federation.propagation import spec_hash
from pincompute.federation.refusal import admission_refused, current_refusal
from pincompute.operator.cluster import Enqueue, Key
from pincompute.operator.events import EventRecorder
from pincompute.operator.federation.host import HostRuntime
from pincompute.operator.federation.revisions_io import ensure_revision
from pincompute.runtime import RuntimeProfile
from pincompute.specs import PinApp, PinScaler, Workload, parse
from pincompute.status import condition_of, set_condition
from pincompute.tenancy import grants_of_quota

log = logging.getLogger(__name__)
NO_PROJECT_QUOTA = "NoProjectQuota"
CLAIM_CACHE = 100_000
WRITERS = 8
WRITE_ATTEMPTS = 3
SCHEDULED = "Scheduled"


@dataclass(frozen=True)
class Judged:
    """One generation of a workload as the host judges it: its claim, or why it cannot be admitted."""

    claim: Claim | None
    problems: HostProblems
    spec_hash: str
    workload: Workload | None = None  # parsed, when the host's checks pass
    scaler: ScalerBounds | None = None  # a PinScaler's bounds

    def scaled(self, steering: list[Steering], *, asked: bool, profile: RuntimeProfile) -> Claim | None:
        """A PinApp's claim with its scalers' reach (``asked`` False: only their admitted bounds); another kind's
        claim as it is."""
        app = self.workload
        if self.claim is None or not isinstance(app, PinApp):
            return self.claim
        replicas = reach(app.meta.name, len(app.zones), steering, asked=asked)
        if replicas <= app.replicas:
            return self.claim
        return claim_of(autoscaled(app, replicas), self.claim.created, profile=profile)


@dataclass(frozen=True)
class Wanted:
    """What one workload's status must say after a pass."""

    admitted: dict[str, Any]  # the Admitted condition: type, status, reason, message, observedGeneration
    admission: Admission | None  # the record (None: holds nothing)
    pending: dict[str, Any] | None  # the ChangePending condition (None: no change waits)

    def holds(self, obj: Mapping[str, Any]) -> bool:
        """Whether ``obj``'s status says this already."""
        have = condition_of(obj, CONDITION)
        pending = condition_of(obj, CHANGE_PENDING)
        recorded = ((obj.get("status") or {}).get("admission")) or None
        return (
            all(have.get(k) == v for k, v in self.admitted.items())
            and recorded == (self.admission.to_status() if self.admission else None)
            and (not pending if self.pending is None else all(pending.get(k) == v for k, v in self.pending.items()))
        )


class Admitter:
    def __init__(
        self,
        host: HostRuntime,
        profile: RuntimeProfile,
        events: EventRecorder,
        enqueue: Enqueue,
        *,
        daemon_nodes: Callable[[], int],
        now: Callable[[], datetime],
    ) -> None:
        self.host, self.profile, self.events, self.enqueue = host, profile, events, enqueue
        self.daemon_nodes, self.now = daemon_nodes, now
        self._judged: dict[str, tuple[tuple[int, int, str], Judged]] = {}
        self.pool = ThreadPoolExecutor(WRITERS, thread_name_prefix="admission-write")

    def _judge(self, obj: dict[str, Any], owner: str, quota: Mapping[str, Any] | None) -> Judged:
        """The workload's current generation judged once per (uid, generation, node count, namespace owner): a
        pass reads every workload of its project, and passes come with every change in it."""
        meta = obj["metadata"]
        nodes = self.daemon_nodes() if obj["kind"] == "PinterestDaemon" else 1
        stamp = (int(meta.get("generation") or 0), nodes, owner)
        uid = str(meta.get("uid"))
        known = self._judged.get(uid)
        if known is not None and known[0] == stamp:
            return known[1]
        problems = host_problems(obj, quota)
        claim, workload = None, None
        if not problems:
            workload = parse(obj)
            claim = claim_of(workload, created_at(obj), profile=self.profile, node_count=nodes)
        bounds = bounds_of(workload) if isinstance(workload, PinScaler) else None
        judged = Judged(claim, problems, spec_hash(obj.get("spec") or {}), workload, bounds)
        if len(self._judged) > CLAIM_CACHE:
            self._judged.clear()
        self._judged[uid] = (stamp, judged)
        return judged

    def run(self, namespace: str) -> int:
        """Decide and write; returns how many workloads changed admission."""
        objects = {f"{o['kind']}/{o['metadata']['name']}": o for o in self.host.workloads(namespace)}
        quota = self.host.quota(namespace)
        owner = namespace_project(quota)
        judged = {key: self._judge(obj, owner, quota) for key, obj in objects.items()}
        refused = {key: refusal for key, obj in objects.items() if (refusal := current_refusal(obj))}
        steering = [_steering(key, obj, judged[key]) for key, obj in objects.items() if obj["kind"] == "PinScaler"]
        held: dict[str, Claim] = {}
        waiting: list[Claim] = []
        changes: list[Claim] = []
        without_raises: dict[str, Claim | None] = {}
        for key, obj in objects.items():
            now = judged[key]
            if key in refused:
                continue
            holds = _held(obj, now)
            claim = now.scaled(steering, asked=True, profile=self.profile)
            if holds is not None:
                held[key] = holds
                if claim is not None and _changed(obj, holds, claim):
                    changes.append(claim)
                    alone = now.scaled(steering, asked=False, profile=self.profile)
                    if alone != claim:
                        without_raises[key] = alone if alone is not None and _changed(obj, holds, alone) else None
            elif claim is not None and not obj["metadata"].get("deletionTimestamp"):
                waiting.append(claim)
        scaled = admit_scaled(grants_of_quota(quota), list(held.values()), waiting, changes, without_raises, steering)
        decision = scaled.decision
        claims = {claim.key: claim for claim in (*decision.admit, *decision.changed)}
        verdicts, pending = dict(decision.verdicts), dict(decision.pending)
        for key, why in scaled.scalers_waiting.items():  # its PinApp does not hold its bounds: it keeps what it has
            claims.pop(key, None)
            if key in held:
                pending[key] = why
            else:
                verdicts[key] = why
        writes = []
        for key, obj in objects.items():
            if obj["metadata"].get("deletionTimestamp"):
                continue
            if key in refused:
                generation = int(obj["metadata"].get("generation") or 0)
                refusal = admission_refused(refused[key])
                wanted: Wanted | None = Wanted(
                    _condition("False", refusal["reason"], refusal["message"], generation), None, None
                )
            else:
                wanted = self._wanted(obj, judged[key], verdicts.get(key), claims.get(key), pending)
            if wanted is None:
                continue
            if quota is None and wanted.admitted["status"] == "False":
                wanted.admitted["reason"] = NO_PROJECT_QUOTA
                wanted.admitted["message"] = (
                    f"namespace {namespace} has no ProjectQuota: it is not an onboarded project's namespace on the "
                    "host, so nothing is granted here"
                )
            if not wanted.holds(obj):
                writes.append((obj, wanted))
        # The decision is made; recording it is one write per workload, done in parallel: first what releases
        # room (a shrink, a reclaim), then the rest, then the scalers' (their bounds reach the members once their
        # PinApps' records hold them), each step only once every write of the one before landed, so the host never
        # records an admission in room still recorded as held. A write that fails leaves a state the next pass
        # decides from (what is recorded admitted holds its claim), so the grant is never exceeded whichever writes
        # land.
        releases = [item for item in writes if _releases(item[0], judged[_key(item[0])], item[1])]
        scalers = [item for item in writes if item not in releases and item[0]["kind"] == "PinScaler"]
        outcomes: list[bool | Exception] = []
        for step in (releases, [item for item in writes if item not in releases and item not in scalers], scalers):
            if any(isinstance(o, Exception) for o in outcomes):
                break
            outcomes += list(self.pool.map(lambda item: self._record(*item), step))
        failures = [o for o in outcomes if isinstance(o, Exception)]
        count = sum(1 for o in outcomes if o is True)
        if count:
            log.info("%s: admission changed for %d workload(s)", namespace, count)
        if failures:
            raise failures[0]
        return count

    def _wanted(
        self,
        obj: dict[str, Any],
        now: Judged,
        verdict: Verdict | None,
        claim: Claim | None,
        pending: Mapping[str, Verdict],
    ) -> Wanted | None:
        """What ``obj``'s status must say (``claim``: what was admitted now, afresh or as a change); None: leave it
        (an admitted object from before admission records, whose spec cannot be judged: nothing known to record)."""
        generation = int(obj["metadata"].get("generation") or 0)
        record = recorded_admission(obj) if is_admitted(obj) else None
        if verdict is None:
            if is_admitted(obj):
                return None
            message = verdict_message(now.problems)
            condition = _condition("False", now.problems.reason, message, generation)
            return Wanted(condition, None, None)
        if not verdict.admitted:
            return Wanted(_condition("False", verdict.reason, verdict.message, generation), None, None)
        if record is None or claim is not None:
            claim = claim or now.claim
            assert claim is not None  # admitted afresh or changed: from a claim of this generation
            record = Admission(generation, now.spec_hash, claim.tier, claim.request, now.scaler)
        waits: dict[str, Any] | None = None
        key = f"{obj['kind']}/{obj['metadata']['name']}"
        if key in pending:
            waits = _condition("True", pending[key].reason, pending[key].message, generation)
        elif now.problems and record.generation != generation:
            message = verdict_message(now.problems, admitted_generation=record.generation)
            waits = _condition("True", now.problems.reason, message, generation)
        return Wanted(_condition("True", verdict.reason, verdict.message, record.generation), record, waits)

    def _record(self, obj: dict[str, Any], wanted: Wanted) -> bool | Exception:
        """Write one verdict (a waiting workload is also ``Scheduled=False`` and ``Queued``); True when its
        admission flipped. A newly recorded admission's spec is kept as a ControllerRevision first (the
        propagator reads an admitted spec from there while a newer one waits). A conflict from its own
        reconcile (finalizer, status) is retried on the fresh object as long as its spec and admission are
        what this pass decided from."""
        have = condition_of(obj, CONDITION)
        had = recorded_admission(obj)
        admitted = wanted.admitted["status"] == "True"
        if wanted.admission is not None and (had is None or had.spec_hash != wanted.admission.spec_hash):
            try:
                ensure_revision(self.host, obj)
            except CoreError as exc:
                return exc
        for _attempt in range(WRITE_ATTEMPTS):
            now = self.now()
            status = _status(obj, wanted, now)
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
                    or recorded_admission(fresh) != had
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
            self.events.record(obj, level, wanted.admitted["reason"], wanted.admitted["message"])
        if wanted.pending is not None and not condition_of(obj, CHANGE_PENDING):
            self.events.record(obj, "Warning", CHANGE_PENDING, wanted.pending["message"])
        meta = obj["metadata"]
        self.enqueue(Key(self.host.name, str(obj["kind"]), str(meta.get("namespace")), str(meta["name"])), "admitted")
        return flipped or not have


def _held(obj: Mapping[str, Any], now: Judged) -> Claim | None:
    """What an admitted workload holds: its recorded admission (an object admitted before records were written:
    its current claim, as then); None when it is not admitted."""
    if not is_admitted(obj):
        return None
    record = recorded_admission(obj)
    if record is None:
        return now.claim
    meta = obj["metadata"]
    return Claim(_key(obj), record.tier, record.request, created_at(obj), str(meta.get("uid") or ""))


def _key(obj: Mapping[str, Any]) -> str:
    return f"{obj['kind']}/{obj['metadata']['name']}"


def _releases(obj: Mapping[str, Any], now: Judged, wanted: Wanted) -> bool:
    """Whether writing ``wanted`` lowers what ``obj`` holds in its tier (and raises nothing)."""
    held = _held(obj, now)
    if held is None:
        return False
    after = wanted.admission if wanted.admitted["status"] == "True" else None
    if after is None:
        return True
    if after.tier is not held.tier:
        return False
    have, want = held.request.amounts(), after.request.amounts()
    return all(want[r] <= have[r] for r in have) and want != have


def _changed(obj: Mapping[str, Any], holds: Claim, claim: Claim) -> bool:
    """Whether the spec moved past the generation its admission records, or (a PinApp) its scalers' reach moved
    the replicas its claim counts."""
    record = recorded_admission(obj)
    if record is None:
        return False
    moved = obj["kind"] == "PinApp" and claim.request.pods != holds.request.pods
    return moved or record.generation != int(obj["metadata"].get("generation") or 0)


def _steering(key: str, obj: Mapping[str, Any], now: Judged) -> Steering:
    """A PinScaler's bounds now and as admitted (an admission recorded without them, from before they were: as
    now)."""
    if not is_admitted(obj):
        return Steering(key, now.scaler, None)
    record = recorded_admission(obj)
    return Steering(key, now.scaler, record.scaler if record is not None and record.scaler else now.scaler)


def _condition(status: str, reason: str, message: str, generation: int) -> dict[str, Any]:
    return {"status": status, "reason": reason, "message": message, "observedGeneration": generation}


def _status(obj: Mapping[str, Any], wanted: Wanted, now: datetime) -> dict[str, Any]:
    """The status merge patch that makes ``obj`` say ``wanted``."""
    generation = int(obj["metadata"].get("generation") or 0)
    conditions = [c for c in (obj.get("status") or {}).get("conditions") or [] if c.get("type") != CHANGE_PENDING]
    a = wanted.admitted
    conditions = set_condition(
        conditions, CONDITION, a["status"], a["reason"], a["message"], a["observedGeneration"], now
    )
    if wanted.pending is not None:
        p = wanted.pending
        previous = condition_of(obj, CHANGE_PENDING)
        conditions = set_condition(
            [*conditions, *([previous] if previous else [])],
            CHANGE_PENDING,
            "True",
            p["reason"],
            p["message"],
            generation,
            now,
        )
    status: dict[str, Any] = {
        "conditions": conditions,
        "admission": wanted.admission.to_status() if wanted.admission else None,
    }
    if a["status"] == "False":
        conditions[:] = set_condition(conditions, SCHEDULED, "False", "NotAdmitted", a["message"], generation, now)
        status["phase"] = "Queued"
    return status
