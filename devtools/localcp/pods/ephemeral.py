"""Ephemeral containers (``kubectl debug``, the portal's debug containers) in a dev pod's sandbox, as a kubelet runs
them: once a container appears in a set-up pod's ``spec.ephemeralContainers`` without a status, its program starts
in the pod's sandbox (``podfs``: the pod's own root, so it sees the pod's files), and the pod's
``status.ephemeralContainerStatuses`` says it is running; when the program ends, it says how (exit code).

Its program is the container's ``command`` + ``args`` or, with neither (the image's default), ``sh``: every dev pod's
programs are the host's ``/usr``, whatever the image. Its stdin stays open while it runs (a debug container is made
with ``stdin: true``, and a runtime keeps stdin open for it), so a shell waits there, as ``kubectl debug`` leaves one;
shells opened into it (exec) run in the pod's sandbox like any exec. Limit: every program of a dev pod runs in a
process namespace of its own (the pod's own program is simulated, not a process), so ``targetContainerName`` shares
the target's files, not its processes.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubernetes import client
from kubernetes.client.rest import ApiException

from . import podfs
from .watch import Pod, Registry

log = logging.getLogger(__name__)
_ATTEMPTS = 5
DEFAULT_PROGRAM = ("sh",)


@dataclass(frozen=True)
class Ephemeral:
    pod_key: str
    pod_uid: str
    name: str
    image: str
    argv: tuple[str, ...]


def pending(pod: dict[str, Any]) -> list[Ephemeral]:
    """The pod's ephemeral containers that have no status yet (not started)."""
    meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    started = {s.get("name") for s in status.get("ephemeralContainerStatuses") or []}
    key = f"{meta.get('namespace')}/{meta.get('name')}"
    out = []
    for c in spec.get("ephemeralContainers") or []:
        if c.get("name") and c["name"] not in started:
            argv = tuple(str(a) for a in [*(c.get("command") or []), *(c.get("args") or [])]) or DEFAULT_PROGRAM
            out.append(Ephemeral(key, str(meta.get("uid", "")), c["name"], str(c.get("image", "")), argv))
    return out


def with_status(statuses: list[dict[str, Any]], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """``statuses`` with ``entry`` in place of the one of its name (appended when there is none)."""
    others = [s for s in statuses if s.get("name") != entry["name"]]
    return [*others, entry]


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class EphemeralRunner:
    """Starts each new ephemeral container of a set-up pod once, in order, on a thread of its own."""

    def __init__(
        self,
        api: client.ApiClient,
        registry: Registry,
        bwrap: str,
        track: Callable[[str, subprocess.Popen[bytes], Callable[[], bool]], bool],
    ) -> None:
        self.core = client.CoreV1Api(api)
        self.registry = registry
        self.bwrap = bwrap
        self.track = track  # the broker's Sessions.add: the pod's deletion kills the program
        self.stop = threading.Event()
        self._queue: queue.Queue[Ephemeral | None] = queue.Queue()
        self._offered: set[tuple[str, str]] = set()  # (pod uid, container): each is started once
        self._lock = threading.Lock()

    def offer(self, pod: dict[str, Any]) -> None:
        """Called with every event of a set-up pod: queues its ephemeral containers not started yet."""
        for eph in pending(pod):
            with self._lock:
                if (eph.pod_uid, eph.name) in self._offered:
                    continue
                self._offered.add((eph.pod_uid, eph.name))
            self._queue.put(eph)

    def run(self) -> None:
        while not self.stop.is_set() and (eph := self._queue.get()) is not None:
            try:
                self._start(eph)
            except (ApiException, OSError) as exc:
                log.warning("ephemeral container %s/%s: %s", eph.pod_key, eph.name, exc)

    def close(self) -> None:
        self.stop.set()
        self._queue.put(None)

    def _start(self, eph: Ephemeral) -> None:
        pod = self.registry.get(eph.pod_key)
        if pod is None or pod.uid != eph.pod_uid:
            return
        started = _now()
        proc, stdin = self._spawn(pod, eph)
        if not self.track(pod.key, proc, lambda: self.registry.get(pod.key) is pod):
            proc.kill()
            os.close(stdin)
            return
        running = {"running": {"startedAt": started}}
        self._write(pod, eph, running)
        threading.Thread(target=self._wait, args=(pod, eph, proc, stdin, started), daemon=True).start()

    def _spawn(self, pod: Pod, eph: Ephemeral) -> tuple[subprocess.Popen[bytes], int]:
        root_fd = podfs.open_dir_nofollow(pod.fs)
        read_end, write_end = os.pipe()
        try:
            cmd = podfs.sandbox_argv(self.bwrap, root_fd, pod.name, list(eph.argv), tty=False)
            proc = subprocess.Popen(
                cmd,
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(root_fd,),
                start_new_session=True,
                env={"PATH": "/usr/bin:/bin"},
                cwd="/",
            )
        except OSError:
            os.close(write_end)
            raise
        finally:
            os.close(root_fd)
            os.close(read_end)
        return proc, write_end  # stdin stays open while the container runs

    def _wait(self, pod: Pod, eph: Ephemeral, proc: subprocess.Popen[bytes], stdin: int, started: str) -> None:
        rc = proc.wait()
        os.close(stdin)
        if self.registry.get(pod.key) is not pod:
            return  # the pod went: nothing to report
        code = 128 - rc if rc < 0 else rc
        ended = {"exitCode": code, "reason": "Completed" if code == 0 else "Error"}
        try:
            self._write(pod, eph, {"terminated": {**ended, "startedAt": started, "finishedAt": _now()}})
        except ApiException as exc:
            log.warning("ephemeral container %s/%s ended: %s", pod.key, eph.name, exc)

    def _write(self, pod: Pod, eph: Ephemeral, state: dict[str, Any]) -> None:
        """The container's entry in ``ephemeralContainerStatuses`` (read, then written at that resourceVersion)."""
        entry = {
            "name": eph.name,
            "image": eph.image,
            "imageID": "",
            "containerID": f"kwok://{pod.uid}/{eph.name}",
            "ready": False,
            "restartCount": 0,
            "state": state,
        }
        for _ in range(_ATTEMPTS):
            resp = self.core.read_namespaced_pod_status(pod.name, pod.namespace, _preload_content=False)
            live = json.loads(resp.data)
            if live["metadata"]["uid"] != pod.uid:
                return
            statuses = with_status((live.get("status") or {}).get("ephemeralContainerStatuses") or [], entry)
            patch = {
                "metadata": {"resourceVersion": live["metadata"]["resourceVersion"]},
                "status": {"ephemeralContainerStatuses": statuses},
            }
            try:
                self.core.patch_namespaced_pod_status(pod.name, pod.namespace, patch, _preload_content=False)
                return
            except ApiException as exc:
                if exc.status != 409:  # a conflict: kwok wrote the status meanwhile; read it again
                    raise
        log.warning("ephemeral container %s/%s: the pod's status kept changing", pod.key, eph.name)
