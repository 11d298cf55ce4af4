"""What a kubelet gives a pod's containers from its Secrets and ConfigMaps, for the local stack's sandboxed pods.

On a real node the kubelet resolves ``env`` (literal values and ``valueFrom`` a Secret's or ConfigMap's key, or the
pod's own name and namespace), ``envFrom`` (every key, with its prefix) and mounts the ``secret`` / ``configMap``
volumes (every key, or the ``items`` it names) as files. The supervisor does the same when it sets a pod up, read
from the member as the pod's namespace holds them then (a Secret changed later reaches a new pod, as with a kubelet's
environment), so a shell in a local pod sees what a container on a real node would. A reference the namespace does
not hold is skipped unless required, when the pod is set up without it and the supervisor logs which (a kubelet would
hold the container in ``CreateContainerConfigError``).

Values are never logged.
"""

from __future__ import annotations

import base64
import logging
import os
import posixpath
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kubernetes import client
from kubernetes.client.rest import ApiException

log = logging.getLogger(__name__)
Env = tuple[tuple[str, str], ...]
FILE_MODE = 0o644  # Kubernetes' defaultMode (420)


class ConfigReader:
    """One pod's reads of its namespace's Secrets and ConfigMaps, each object read once (None: absent)."""

    def __init__(self, core: client.CoreV1Api, namespace: str) -> None:
        self.core, self.namespace = core, namespace
        self._held: dict[tuple[str, str], dict[str, str] | None] = {}

    def data(self, kind: str, name: str) -> dict[str, str] | None:
        key = (kind, name)
        if key not in self._held:
            self._held[key] = self._read(kind, name)
        return self._held[key]

    def _read(self, kind: str, name: str) -> dict[str, str] | None:
        read: Callable[..., Any] = (
            self.core.read_namespaced_secret if kind == "Secret" else self.core.read_namespaced_config_map
        )
        try:
            obj = read(name, self.namespace)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise
        if kind == "Secret":
            return {k: base64.b64decode(v or "").decode("utf-8", "replace") for k, v in (obj.data or {}).items()}
        return dict(obj.data or {})


def _ref_value(reader: ConfigReader, kind: str, ref: Mapping[str, Any], pod: str) -> str | None:
    held = reader.data(kind, str(ref.get("name") or ""))
    value = None if held is None else held.get(str(ref.get("key") or ""))
    if value is None and not ref.get("optional"):
        what = (pod, kind, ref.get("name"), ref.get("key"))
        log.warning("pod %s: %s %s key %s is not held: the variable is left out", *what)
    return value


def container_env(reader: ConfigReader, container: Mapping[str, Any], pod: Mapping[str, Any]) -> Env:
    """The container's variables as a kubelet sets them: ``envFrom`` first, then ``env`` (which wins)."""
    meta = pod.get("metadata") or {}
    name = f"{reader.namespace}/{meta.get('name')}"
    out: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        secret = bool(source.get("secretRef"))
        kind, ref = ("Secret", source["secretRef"]) if secret else ("ConfigMap", source.get("configMapRef"))
        if not ref:
            continue
        held = reader.data(kind, str(ref.get("name") or ""))
        if held is None and not ref.get("optional"):
            log.warning("pod %s: %s %s is not held: its variables are left out", name, kind, ref.get("name"))
        for key, value in (held or {}).items():
            out[f"{source.get('prefix') or ''}{key}"] = value
    fields = {"metadata.name": str(meta.get("name") or ""), "metadata.namespace": reader.namespace}
    for var in container.get("env") or []:
        source = var.get("valueFrom") or {}
        if "value" in var or not source:
            out[var["name"]] = str(var.get("value") or "")
        elif source.get("secretKeyRef") or source.get("configMapKeyRef"):
            kind = "Secret" if source.get("secretKeyRef") else "ConfigMap"
            value = _ref_value(reader, kind, source.get("secretKeyRef") or source["configMapKeyRef"], name)
            if value is not None:
                out[var["name"]] = value
        elif (source.get("fieldRef") or {}).get("fieldPath") in fields:
            out[var["name"]] = fields[source["fieldRef"]["fieldPath"]]
    return tuple(out.items())


def pod_env(core: client.CoreV1Api, pod: Mapping[str, Any]) -> tuple[tuple[str, Env], ...]:
    """Each container's (and sidecar's) variables, by container name."""
    spec = pod.get("spec") or {}
    reader = ConfigReader(core, str((pod.get("metadata") or {}).get("namespace") or ""))
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    containers = [*(spec.get("containers") or []), *sidecars]
    return tuple((str(c["name"]), container_env(reader, c, pod)) for c in containers)


def _inside(fs: Path, mount_path: str, rel: str = "") -> Path | None:
    """``mount_path``/``rel`` within the pod's root, or None for a path that would leave it or pass a symlink."""
    joined = posixpath.normpath(posixpath.join("/", mount_path, rel)).lstrip("/")
    if not joined or joined.startswith("..") or any(part in ("", "..") for part in joined.split("/")):
        return None
    here = fs
    for part in joined.split("/")[:-1]:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            return None
    return fs / joined


def write_volume_files(core: client.CoreV1Api, pod: Mapping[str, Any], fs: Path, chown: Callable[[Path], None]) -> int:
    """Write every ``secret`` / ``configMap`` volume a container mounts into the pod's root at its mount path (the
    pod's containers share one root here); the files written."""
    spec = pod.get("spec") or {}
    reader = ConfigReader(core, str((pod.get("metadata") or {}).get("namespace") or ""))
    volumes = {str(v.get("name")): v for v in spec.get("volumes") or []}
    written = 0
    for container in [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]:
        for mount in container.get("volumeMounts") or []:
            volume = volumes.get(str(mount.get("name"))) or {}
            source = volume.get("secret") or volume.get("configMap")
            if not source:
                continue
            kind = "Secret" if volume.get("secret") else "ConfigMap"
            held = reader.data(kind, str(source.get("secretName") or source.get("name") or ""))
            if held is None:
                continue
            items = source.get("items") or [{"key": k, "path": k} for k in held]
            for item in items:
                target = _inside(fs, str(mount.get("mountPath") or ""), str(item.get("path") or ""))
                value = held.get(str(item.get("key") or ""))
                if target is None or value is None:
                    continue
                _write(fs, target, value, chown)
                written += 1
    return written


def _write(fs: Path, target: Path, value: str, chown: Callable[[Path], None]) -> None:
    parent = target.parent
    missing = []
    while parent != fs and not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        directory.mkdir(mode=0o755)
        chown(directory)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    with os.fdopen(fd, "w") as out:
        out.write(value)
    chown(target)
