"""A container restart, as a kubelet does it when the container's PID 1 ends: the simulated program starts again
(its startup lines in the console log) and the pod's status counts it.

kwok only runs a pod's lifecycle stages; nothing of it kills or restarts one container. An exec of ``kill`` aimed
at PID 1 (``kill -TERM 1``, as the operator's container restart sends it) reaches the broker with the container
its pod's kwok Exec rule names; the broker asks this module instead of starting a sandbox. The status patch is
the kubelet's: ``containerStatuses[].restartCount`` + 1, ``lastState.terminated`` (exit 143: SIGTERM), a new
``state.running.startedAt``; same pod, same uid.

As on a kubelet, the ``kill`` returns once the signal is delivered and the restart follows: the exec answers after
one bounded read (the pod is still this one, the container runs), and the status is written in the background. The
write used to sit inside the exec with no client timeout: on a loaded apiserver the operator's 20 s wait for the
exec's exit status ran out and it deleted the pod instead (``test_restart_container_restarts_it_in_place``).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import logging
import re
import threading
from collections.abc import Callable
from typing import Any

from kubernetes import client
from kubernetes.client.rest import ApiException
from urllib3.exceptions import HTTPError

from .watch import Pod, Registry

SIGTERM_EXIT = 143
_KILL_PID_1 = re.compile(r"^\s*(?:exec\s+)?kill(?:\s+-(?:TERM|SIGTERM|15|KILL|SIGKILL|9|INT|2))?\s+1\s*$")
_ATTEMPTS = 5
_TIMEOUT = (3.0, 5.0)  # connect, read: the exec's answer waits for one read at most
log = logging.getLogger(__name__)


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
        self.core = client.CoreV1Api(_one_retry(api))
        self.registry = registry
        self.on_restart = on_restart

    def restart(self, key: str, container: str) -> str | None:
        """``None`` once the restart is under way, else why not (for the exec's stderr)."""
        pod = self.registry.get(key)
        if pod is None:
            return "this pod's sandbox is not set up"
        try:
            why = self._check(pod, container, self._read(pod))
        except (ApiException, HTTPError) as exc:
            return f"cannot restart container {container}: {_said(exc)}"
        if why is None:
            threading.Thread(target=self._finish, args=(pod, container), name=f"restart {key}", daemon=True).start()
        return why

    def _read(self, pod: Pod) -> dict[str, Any]:
        resp = self.core.read_namespaced_pod_status(
            pod.name, pod.namespace, _preload_content=False, _request_timeout=_TIMEOUT
        )
        return json.loads(resp.data)

    @staticmethod
    def _check(pod: Pod, container: str, live: dict[str, Any]) -> str | None:
        if live["metadata"]["uid"] != pod.uid:
            return "the pod was replaced"
        if _restarted(live, container, "") is None:
            return f"container {container} is not running"
        return None

    def _finish(self, pod: Pod, container: str) -> None:
        """Write the restart, reading again after a conflict (kwok wrote the status meanwhile)."""
        for _ in range(_ATTEMPTS):
            try:
                live = self._read(pod)
                if self._check(pod, container, live) is not None:
                    return
                now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                group, statuses = _restarted(live, container, now) or ("", [])  # running: _check said so
                version = live["metadata"]["resourceVersion"]
                patch = {"metadata": {"resourceVersion": version}, "status": {group: statuses}}
                self.core.patch_namespaced_pod_status(
                    pod.name, pod.namespace, patch, _preload_content=False, _request_timeout=_TIMEOUT
                )
            except (ApiException, HTTPError) as exc:
                if isinstance(exc, ApiException) and exc.status == 404:
                    return
                log.warning("%s: restarting container %s: %s; trying again", pod.key, container, _said(exc))
                continue
            self.on_restart(pod)
            return
        log.warning("%s: container %s not restarted: the pod's status kept changing", pod.key, container)


def _one_retry(api: client.ApiClient) -> client.ApiClient:
    """A client of its own whose urllib3 retries once (a pooled connection the server closed meanwhile), not three
    times: a read that timed out, tried four times, would outlast the operator's 20 s wait for the exec again."""
    config = copy.deepcopy(api.configuration)
    config.retries = 1
    return client.ApiClient(config)


def _restarted(live: dict[str, Any], container: str, now: str) -> tuple[str, list[dict[str, object]]] | None:
    """The status group holding ``container`` (a sidecar is an init container) and its statuses once restarted."""
    status = live.get("status") or {}
    for group in ("containerStatuses", "initContainerStatuses"):
        statuses = restarted_statuses(status.get(group) or [], container, now)
        if statuses is not None:
            return group, statuses
    return None


def _said(exc: Exception) -> str:
    return f"{exc.status} {exc.reason}" if isinstance(exc, ApiException) else f"the apiserver did not answer ({exc})"
