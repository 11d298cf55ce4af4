"""The members' copies of a project's Secrets and ConfigMaps: applied where a shard that references them lands,
deleted when no shard on that member needs them (``federation/config_copies.py`` decides which).

Only the federation's copies (``COPY_LABEL``) are ever deleted. Values pass through and are never logged: a failure
names the member, the kind and the object, nothing of its data.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pincompute.configs import CONFIG_KINDS, ConfigKind
from pincompute.errors import CoreError
from pincompute.federation.config_copies import COPY_LABEL, ObjectKey, checksum, plan, same_copy, used
from pincompute.federation_rights import BINDING_NAME
from pincompute.operator.cluster import ClusterRuntime
from pincompute.operator.events import EventRecorder
from pincompute.operator.federation.config_watches import CONFIG_RESOURCES
from pincompute.operator.federation.host import HostRuntime
from pincompute.operator.federation.member_health import MemberHealth

log = logging.getLogger(__name__)


class ConfigCopier:
    def __init__(self, host: HostRuntime, members: Mapping[str, ClusterRuntime], health: MemberHealth) -> None:
        self.host, self.members, self.health = host, members, health

    def held(self, namespace: str) -> dict[ObjectKey, dict[str, Any]]:
        """The project's objects on the host (the portal's, from the host watch)."""
        found: dict[ObjectKey, dict[str, Any]] = {}
        for kind in CONFIG_KINDS:
            for obj in self.host.configs.objects(kind, namespace):
                found[(kind, str(obj["metadata"]["name"]))] = {**obj, "kind": kind}
        return found

    def ready(self, workload: Mapping[str, Any]) -> bool:
        """Whether what ``workload`` references is known: it references nothing, or its namespace's objects are
        listed (before that, an empty store would strip its pods' checksum and roll them)."""
        return not used(workload) or self.host.configs.synced(str(workload["metadata"]["namespace"]))

    def report_unreadable(self, obj: Mapping[str, Any], events: EventRecorder) -> None:
        """Say on the workload why it waits when its project's Secrets/ConfigMaps cannot be listed (a refused
        list, typically the project namespace's RoleBinding missing), not only in the operator's log."""
        namespace = str(obj["metadata"]["namespace"])
        problem = self.host.configs.problem(namespace)
        if problem:
            message = (
                f"waiting to read the project's Secrets and ConfigMaps in {namespace} ({problem}); the federation "
                f"reads them through the RoleBinding {BINDING_NAME} that provisioning applies in the project namespace"
            )
            events.record(obj, "Warning", "ConfigsUnreadable", message)

    def checksum(self, workload: Mapping[str, Any]) -> str:
        return checksum(workload, self.held(str(workload["metadata"]["namespace"])))

    def sync(self, namespace: str) -> tuple[int, bool]:
        """Make every reachable member hold exactly its planned copies in ``namespace``; (writes, anything left).
        Nothing is decided while a workload there references objects not listed yet (it would delete their copies)."""
        workloads = self.host.workloads(namespace)
        if not all(self.ready(w) for w in workloads):
            return 0, True
        copies = plan(workloads, self.held(namespace))
        wrote, pending = 0, False
        for name, member in self.members.items():
            if not self.health.reachable(name):
                pending = pending or name in copies
                continue
            want = copies.get(name, {})
            try:
                live = self._live(member, namespace)
                for key, copy in want.items():
                    if not same_copy(copy, live.get(key)):
                        member.kube.apply(copy.manifest, CONFIG_RESOURCES[copy.kind])
                        wrote += 1
                for (kind, obj_name), obj in live.items():
                    if (kind, obj_name) not in want:
                        member.kube.delete(CONFIG_RESOURCES[kind], namespace, obj_name, uid=obj["metadata"].get("uid"))
                        wrote += 1
            except CoreError as exc:
                pending = True
                log.info("config copies in %s on %s: %s", namespace, name, type(exc).__name__)
        return wrote, pending

    def _live(self, member: ClusterRuntime, namespace: str) -> dict[ObjectKey, dict[str, Any]]:
        """The federation's copies on ``member`` in ``namespace`` (read from its API: members do not watch them)."""
        found: dict[ObjectKey, dict[str, Any]] = {}
        for kind in CONFIG_KINDS:
            listed = member.kube.list(CONFIG_RESOURCES[kind], namespace=namespace, selector=f"{COPY_LABEL}=true")
            for obj in listed.get("items") or []:
                found[(_kind(kind), str(obj["metadata"]["name"]))] = obj
        return found


def _kind(kind: str) -> ConfigKind:
    return "Secret" if kind == "Secret" else "ConfigMap"
