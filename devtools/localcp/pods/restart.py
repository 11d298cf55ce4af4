"""A container restart, as a kubelet does it when the container's PID 1 ends: the simulated program starts again
(its startup lines in the console log) and the pod's status counts it.

kwok only runs a pod's lifecycle stages; nothing of it kills or restarts one container. An exec of ``kill`` aimed
at PID 1 (``kill -TERM 1``, as the operator's container restart sends it) reaches the broker with the container
its pod's kwok Exec rule names; the broker asks this module instead of starting a sandbox. The status patch is
the kubelet's: ``containerStatuses[].restartCount`` + 1, ``lastState.terminated`` (exit 143: SIGTERM), a new
``state.running.startedAt``; same pod, same uid.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable

from kubernetes import client
from kubernetes.client.rest import ApiException

from .watch import Pod, Registry

SIGTERM_EXIT = 143
_KILL_PID_1 = re.compile(r"^\s*(?:exec\s+)?kill(?:\s+-(?:TERM|SIGTERM|15|KILL|SIGKILL|9|INT|2))?\s+1\s*$")
_ATTEMPTS = 5


def kills_pid_1(argv: list[str]) -> bool:
    """Is the command a ``kill`` of PID 1 (``kill -TERM 1``, bare or through ``sh -c``)?"""
    if len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in ("sh", "bash", "dash") and argv[1] == "-c":
        return bool(_KILL_PID_1.match(argv[2]))
    return bool(_KILL_PID_1.match(" ".join(argv))) and argv[0].rsplit("/", 1)[-1] == "kill"


def restarted_statuses(statuses: list[dict[str, object]], container: str, now: str) -> list[dict[str, object]] | None:
    """The pod's container statuses once ``container`` restarted, or ``None`` when it does not run."""
    out, found = [], False
    for status in statuses:
        state = status.get("state")
        running = state.get("running") if isinstance(state, dict) else None
        if status.get("name") == container and isinstance(running, dict):
            found = True
            terminated = {"exitCode": SIGTERM_EXIT, "reason": "Error", "finishedAt": now}
            if running.get("startedAt"):
                terminated["startedAt"] = running["startedAt"]
            if status.get("containerID"):
                terminated["containerID"] = status["containerID"]
            restarts = status.get("restartCount")
            status = {
                **status,
                "restartCount": (restarts if isinstance(restarts, int) else 0) + 1,
                "lastState": {"terminated": terminated},
                "state": {"running": {"startedAt": now}},
            }
        out.append(status)
    return out if found else None


class Restarter:
    """Restarts one container of a set-up pod: its program's log starts over, its status counts the restart."""

    def __init__(self, api: client.ApiClient, registry: Registry, on_restart: Callable[[Pod], None]) -> None:
        self.core = client.CoreV1Api(api)
        self.registry = registry
        self.on_restart = on_restart

    def restart(self, key: str, container: str) -> str | None:
        """``None`` once restarted, else why not (for the exec's stderr)."""
        pod = self.registry.get(key)
        if pod is None:
            return "this pod's sandbox is not set up"
        for _ in range(_ATTEMPTS):
            try:
                return self._patch(pod, container)
            except ApiException as exc:
                if exc.status != 409:  # a conflict: kwok wrote the status meanwhile; read it again
                    return f"cannot restart container {container}: {exc.status} {exc.reason}"
        return f"cannot restart container {container}: the pod's status kept changing"

    def _patch(self, pod: Pod, container: str) -> str | None:
        resp = self.core.read_namespaced_pod_status(pod.name, pod.namespace, _preload_content=False)
        live = json.loads(resp.data)
        if live["metadata"]["uid"] != pod.uid:
            return "the pod was replaced"
        now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        status = live.get("status") or {}
        group = "containerStatuses"
        statuses = restarted_statuses(status.get(group) or [], container, now)
        if statuses is None:
            group = "initContainerStatuses"  # a sidecar
            statuses = restarted_statuses(status.get(group) or [], container, now)
        if statuses is None:
            return f"container {container} is not running"
        patch = {"metadata": {"resourceVersion": live["metadata"]["resourceVersion"]}, "status": {group: statuses}}
        self.core.patch_namespaced_pod_status(pod.name, pod.namespace, patch, _preload_content=False)
        self.on_restart(pod)
        return None
