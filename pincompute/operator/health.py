"""``/healthz`` and ``/readyz`` of the operator process, answered beside ``/metrics`` (``metrics.serve``).

Liveness fails only for what a restart repairs: a list-watch that crashed and was not restarted (the discovery
loop restarts one within its period, so a crash older than ``RESTART_GRACE`` means that loop is gone too), a
reconcile worker thread that died, a leader election that stopped stepping. An apiserver outage is none of these:
the watches back off and retry, and restarting the process would not bring the apiserver back.

Readiness: a standby replica is ready (it waits for the Lease; the PodDisruptionBudget counts it, and a rollout
must not wait for a leader that never comes); the leader once every watch it started has listed once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from pincompute.kube.listwatch import ListWatch

if TYPE_CHECKING:
    from pincompute.operator.controller import Operator

RESTART_GRACE = 60.0  # seconds a crashed watch may wait for the discovery loop (15 s period) to restart it
ELECTION_STALL = 60.0  # seconds without an election round (every 2 s) before the election counts as stuck

Clock = Callable[[], float]
StartResponse = Callable[[str, list[tuple[str, str]]], object]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def watches(operator: Operator) -> Iterator[tuple[str, ListWatch]]:
    """Every list-watch the operator runs now: each member's, and the host's when it is the federation."""
    for cluster in operator.clusters.values():
        for kind, watch in list(cluster.watches.items()):
            yield f"{cluster.name}/{kind}", watch
    if operator.federation is not None:
        for kind, watch in list(operator.federation.host.watches.items()):
            yield f"{operator.federation.name}/{kind}", watch


def liveness(operator: Operator, *, now: Clock = time.time, clock: Clock = time.monotonic) -> list[str]:
    """What is broken for good in this process (empty: alive)."""
    if operator.stop.is_set():
        return []  # draining: the process exits on its own
    problems = [
        f"watch {name} crashed {now() - watch.last_error_at:.0f}s ago and was not restarted ({watch.last_error})"
        for name, watch in watches(operator)
        if watch.crashed and now() - watch.last_error_at > RESTART_GRACE
    ]
    problems += [f"reconcile worker {name} died" for name in operator.dead_workers()]
    elector = operator.elector
    if elector is not None and elector.last_step_at is not None:
        idle = clock() - elector.last_step_at
        if idle > max(ELECTION_STALL, 10 * elector.retry_period):
            problems.append(f"leader election: no round for {idle:.0f}s")
    return problems


def readiness(operator: Operator) -> list[str]:
    """Why this replica is not ready (empty: ready)."""
    if operator.stop.is_set():
        return ["shutting down"]
    if not operator.started:
        return []  # standby: waiting for the Lease is this replica's job
    return [
        f"watch {name} has not listed yet"
        for name, watch in watches(operator)
        if not watch.synced.is_set() and not watch.gone
    ]


def _answer(start: StartResponse, problems: list[str]) -> list[bytes]:
    status = "503 Service Unavailable" if problems else "200 OK"
    body = json.dumps({"status": "unavailable" if problems else "ok", "problems": problems}).encode()
    start(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def with_probes(metrics_app: WsgiApp, operator: Operator) -> WsgiApp:
    """``/healthz`` and ``/readyz`` for ``operator``; every other path to ``metrics_app`` (``/metrics``)."""

    def app(environ: dict[str, Any], start: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            return _answer(start, liveness(operator))
        if path == "/readyz":
            return _answer(start, readiness(operator))
        return metrics_app(environ, start)

    return app
