"""The shells a terminal may start: a fixed list, picked by name (``?shell=`` on the exec websocket).

The browser names a shell; the server maps the name to a fixed command. Anything not in ``SHELLS`` is refused
(close 4400): no client-chosen command line ever reaches the pod. ``auto`` (the default) starts bash when the
container has it, else sh. ``available`` asks the container which of them it has (one short exec, cached), so
the picker offers bash only where it exists.
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.core.cache import cache
from kubernetes import client as k8s
from kubernetes.client.rest import ApiException
from kubernetes.stream import stream as k8s_stream
from websocket import WebSocketException

from base.errors import Invalid

AUTO = "auto"
SHELLS: dict[str, list[str]] = {
    AUTO: ["/bin/sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"],
    "sh": ["/bin/sh"],
    "bash": [
        "/bin/sh",
        "-c",
        "command -v bash >/dev/null && exec bash; echo 'bash is not in this container: pick sh.'",
    ],
}
PROBE = ["/bin/sh", "-c", "command -v bash >/dev/null && echo has-bash; echo has-sh"]
PROBE_CACHE_SECONDS = 600


def shell_command(name: str | None) -> tuple[str, list[str]]:
    """(name, command) of a shell from the fixed list; ``Invalid`` (4400) for any other name."""
    picked = (name or AUTO).strip()
    if picked not in SHELLS:
        raise Invalid.on("shell", f"shell={picked[:40]!r}: pick one of {', '.join(SHELLS)}.")
    return picked, SHELLS[picked]


def available(api: k8s.ApiClient, namespace: str, pod: str, uid: str, container: str) -> list[str]:
    """The shells of the fixed list this container has (``["sh"]`` at least: ``/bin/sh`` is the exec's own)."""
    key = f"debug-shells:{uid}:{container}"
    found = cache.get(key)
    if found is None:
        found = ["sh"]
        # stream() swaps the client's request method while it connects: a private ApiClient (same config).
        with (
            contextlib.suppress(ApiException, WebSocketException, OSError, ValueError),
            k8s.ApiClient(configuration=api.configuration) as private,
        ):
            out: Any = k8s_stream(
                k8s.CoreV1Api(private).connect_get_namespaced_pod_exec,
                pod,
                namespace,
                container=container,
                command=PROBE,
                stdout=True,
                stderr=False,
                stdin=False,
                tty=False,
                _request_timeout=5,
            )
            if "has-bash" in str(out):
                found = ["sh", "bash"]
            cache.set(key, found, PROBE_CACHE_SECONDS)
    return found
