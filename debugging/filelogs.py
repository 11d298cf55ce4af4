"""File-based logs: follow a file inside a container with ``tail -F`` over exec.

The path comes from the kind's declared ``log_files`` or is typed (``logoptions.valid_file_path``: absolute, plain
segments). It is handed to ``tail`` as one argv element of a fixed command, never through a shell, so nothing in
it is interpreted. ``-F`` keeps following across rotation and waits for a file that does not exist yet; what tail
says on stderr ("cannot open ...", "has been replaced") is passed on as a notice, not as a log line.

The exec websocket comes from the blocking kubernetes client, read in a thread of its own (one per followed file;
the per-user socket cap bounds them). Each line is stamped with the time it arrived (a file has no timestamps the
server could trust), which also gives it its ``seq``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from kubernetes import client as k8s
from kubernetes.client.rest import ApiException
from kubernetes.stream import stream as k8s_stream
from websocket import WebSocketException

from debugging.streams import LineBuffer, RawLine
from workloads.core.kinds import DEFAULT_LOG_FILES, KINDS
from workloads.core.labels import KIND_LABEL

FILE_TAIL_LINES = 200


def declared_log_files(pod: dict[str, Any]) -> tuple[str, ...]:
    """The files the pod's kind declares (``KindInfo.log_files``); the default list for a pod of no known kind."""
    kind = ((pod.get("metadata") or {}).get("labels") or {}).get(KIND_LABEL, "")
    info = KINDS.get(kind)
    return info.log_files if info is not None else DEFAULT_LOG_FILES


def tail_command(path: str, lines: int) -> list[str]:
    """The fixed command: ``path`` is one argv element after ``--`` (no option, no shell)."""
    return ["tail", "-n", str(lines), "-F", "--", path]


def now_rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class FileFollower:
    """``tail -F`` of one file in one container, pushing lines into a LineBuffer (the LogFollower interface)."""

    def __init__(
        self,
        api: k8s.ApiClient,
        namespace: str,
        pod: str,
        container: str,
        path: str,
        sink: LineBuffer,
        *,
        tail_lines: int | None = FILE_TAIL_LINES,
        on_end: Callable[[str, str, str], None] | None = None,
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        # stream() swaps api_client.request while it connects: a private ApiClient (same configuration).
        self._api = k8s.ApiClient(configuration=api.configuration)
        self.namespace, self.pod, self.container, self.path = namespace, pod, container, path
        self.sink, self.on_end, self.on_notice = sink, on_end, on_notice
        self.tail_lines = FILE_TAIL_LINES if tail_lines is None else tail_lines
        self._ws: Any = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"filelog-{self.pod}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        reason, pending = "ended", {"out": "", "err": ""}
        try:
            self._ws = k8s_stream(
                k8s.CoreV1Api(self._api).connect_get_namespaced_pod_exec,
                self.pod,
                self.namespace,
                container=self.container,
                command=tail_command(self.path, self.tail_lines),
                stdin=False,
                stdout=True,
                stderr=True,
                tty=False,
                _preload_content=False,
            )
            ws = self._ws
            while ws.is_open() and not self._stopping.is_set():
                ws.update(timeout=0.25)
                if ws.peek_stdout():
                    pending["out"] = self._lines(pending["out"] + ws.read_stdout(), self._emit)
                if ws.peek_stderr():
                    pending["err"] = self._lines(pending["err"] + ws.read_stderr(), self._notice)
        except (WebSocketException, OSError, ValueError, ApiException) as exc:
            reason = f"error: {getattr(exc, 'reason', None) or type(exc).__name__}"
        except (TypeError, AttributeError):
            if not self._stopping.is_set():  # close() from another thread under ws.update(): only when stopping
                raise
        finally:
            self._api.close()
        if not self._stopping.is_set() and self.on_end is not None:
            self.on_end(self.pod, self.container, reason)

    @staticmethod
    def _lines(text: str, each: Callable[[str], None]) -> str:
        *complete, rest = text.split("\n")
        for line in complete:
            each(line.rstrip("\r"))
        return rest

    def _emit(self, text: str) -> None:
        self.sink.put(RawLine(self.pod, self.container, now_rfc3339(), text))

    def _notice(self, text: str) -> None:
        if text and self.on_notice is not None:
            self.on_notice(text)

    def stop(self) -> None:
        """Ends the exec (closing the websocket ends tail); the thread returns within one poll."""
        self._stopping.set()
        if self._ws is not None:
            with contextlib.suppress(WebSocketException, OSError):
                self._ws.close()
