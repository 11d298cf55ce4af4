"""A real local Kubernetes control plane: one host cluster plus N member clusters.

Each cluster has its own etcd and kube-apiserver on free loopback ports. The host also runs a
kube-controller-manager (namespaces, service accounts, garbage collection). Members add a
kube-scheduler, a kwok controller simulating ``nodes_per_member`` Nodes (status, pod lifecycle, logs,
exec, attach) and a pod supervisor (``pods``): each pod's console log and private filesystem, and the
sandbox its exec'd commands run in.

Security: kwok runs in a bubblewrap jail where every program is ``podshim``; exec'd commands run as uid
65534 in the pod's own sandbox (no host file, no network). kwok's server has no authentication:
everything listens on 127.0.0.1 only; never expose these ports.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from . import binaries as _binaries
from . import procs
from .components import HOST_COMPONENTS, MEMBER_COMPONENTS, PORT_NAMES, Component, check, cluster_components
from .layout import HOST, ClusterInfo, Layout, member_names, read_layout, write_kubeconfig, write_layout
from .pki import PKI, ensure_pki
from .procs import ComponentError, Proc

SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class LocalControlPlane:
    def __init__(
        self,
        state_dir: Path,
        members: int = 2,
        nodes_per_member: int = 20,
        region: str = "local-1",
        *,
        build_missing: bool = True,
        job_complete_delay_ms: int = 3000,
        apiserver_extra_args: dict[str, str] | None = None,
        log_archive_url: str = "",
    ) -> None:
        self.state_dir = Path(state_dir).expanduser().resolve()
        self.members = members
        self.nodes_per_member = nodes_per_member
        self.region = region
        self.build_missing = build_missing
        self.job_complete_delay_ms = job_complete_delay_ms
        self.apiserver_extra_args = dict(apiserver_extra_args or {})
        self.log_archive_url = log_archive_url  # each member's pod supervisor ships its pods' logs there
        self._pki: PKI | None = None
        self.timings: dict[str, float] = {}

    # ----------------------------------------------------------------- layout
    @property
    def kubeconfig_path(self) -> Path:
        return self.state_dir / "kubeconfig"

    @property
    def pki(self) -> PKI:
        if self._pki is None:
            self._pki = ensure_pki(self.state_dir)
        return self._pki

    @property
    def clusters(self) -> list[ClusterInfo]:
        """Clusters of the layout written by ``up()`` (empty before the first ``up()``)."""
        layout = read_layout(self.state_dir)
        return layout.clusters if layout else []

    def cluster(self, name: str) -> ClusterInfo:
        for c in self.clusters:
            if c.name == name:
                return c
        raise KeyError(name)

    def _plan(self, previous: Layout | None) -> list[ClusterInfo]:
        """Cluster list with ports: reuse the previous ports when they are still free."""
        prev = {c.name: c for c in previous.clusters} if previous else {}
        names = [(HOST, "host", f"{self.region}a")] + [
            (n, "member", f"{self.region}{chr(ord('a') + i)}") for i, n in enumerate(member_names(self.members))
        ]
        taken: set[int] = set()
        out = []
        for name, role, zone in names:
            comps = HOST_COMPONENTS if role == "host" else MEMBER_COMPONENTS
            ports: dict[str, int] = {}
            for comp in comps:
                for pname in PORT_NAMES.get(comp, ()):
                    want = prev[name].ports.get(pname) if name in prev else None
                    port = procs.free_port(want if want not in taken else None)
                    while port in taken:
                        port = procs.free_port()
                    taken.add(port)
                    ports[pname] = port
            cdir = self.state_dir / name
            out.append(
                ClusterInfo(
                    name=name,
                    role=role,
                    region=self.region,
                    zone=zone,
                    context=name,
                    server=f"https://127.0.0.1:{ports['apiserver']}",
                    ports=ports,
                    components=list(comps),
                    nodes=self.nodes_per_member if role == "member" else 0,
                    dir=str(cdir),
                    pods_dir=str(cdir / "pods") if role == "member" else None,
                    pod_logs_dir=str(cdir / "pod-logs") if role == "member" else None,
                )
            )
        return out

    def _component_opts(self) -> dict[str, Any]:
        return {
            "job_complete_delay_ms": self.job_complete_delay_ms,
            "apiserver_extra_args": self.apiserver_extra_args,
            "log_archive_url": self.log_archive_url,
        }

    def _proc(self, c: ClusterInfo, comp: str) -> Proc:
        d = Path(c.dir)
        return Proc(comp, d / "run", d / "logs")

    # ----------------------------------------------------------------- health
    def _component_status(self, c: ClusterInfo, comp: Component) -> dict[str, Any]:
        proc = self._proc(c, comp.name)
        pid = proc.pid()
        healthy = pid is not None and check(comp)
        return {
            "pid": pid,
            "alive": pid is not None,
            "healthy": healthy,
            "rss_kib": procs.rss_kib(pid) if pid else None,
            "log": str(proc.log_file),
        }

    def status(self) -> dict[str, Any]:
        """``{"healthy": bool, "clusters": {name: {"server", "role", "zone", "components": {...}}}}``."""
        layout = read_layout(self.state_dir)
        out: dict[str, Any] = {
            "state_dir": str(self.state_dir),
            "kubeconfig": str(self.kubeconfig_path),
            "healthy": False,
            "clusters": {},
        }
        if layout is None:
            return out
        bins = _binaries.Binaries(Path(layout.bin_dir))
        healthy = True
        for c in layout.clusters:
            comps = {
                comp.name: self._component_status(c, comp)
                for comp in cluster_components(c, bins, self.pki, **self._component_opts())
            }
            healthy = healthy and all(v["healthy"] for v in comps.values())
            out["clusters"][c.name] = {
                "server": c.server,
                "role": c.role,
                "zone": c.zone,
                "components": comps,
            }
        out["healthy"] = healthy
        out["startup_seconds"] = layout.startup_seconds
        return out

    def is_healthy(self) -> bool:
        return bool(self.status()["healthy"])

    # ------------------------------------------------------------------ up/down
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Serialize up/down across processes sharing this state dir (dev command, test sessions)."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        with (self.state_dir / ".lock").open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def up(self, timeout: float = 300.0, on_ready: Callable[[ClusterInfo], None] | None = None) -> list[ClusterInfo]:
        """Start everything (or reuse a healthy running control plane). Returns the clusters; ``on_ready`` is
        called with each cluster once it answers (from the thread that started it)."""
        with self._locked():
            return self._up(timeout, on_ready or (lambda cluster: None))

    def down(self) -> list[str]:
        """Stop every component of every cluster (reverse order). Returns leftover pids (empty on success)."""
        with self._locked():
            return self._down()

    def _up(self, timeout: float, on_ready: Callable[[ClusterInfo], None]) -> list[ClusterInfo]:
        t0 = time.monotonic()
        previous = read_layout(self.state_dir)
        want = [HOST, *member_names(self.members)]
        if previous and [c.name for c in previous.clusters] == want and self.is_healthy():
            from .nodes import ensure_nodes  # local import: kubernetes client is slow to import

            for c in previous.clusters:
                if c.role == "member" and c.nodes != self.nodes_per_member:
                    ensure_nodes(self, c, self.nodes_per_member)
                on_ready(c)
            write_layout(self.state_dir, previous)
            self.timings["reused"] = time.monotonic() - t0
            return previous.clusters
        if previous:
            self._down()
        bins = _binaries.locate(_binaries.CONTROL_PLANE, build_missing=self.build_missing)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        _ = self.pki
        clusters = self._plan(previous)
        for c in clusters:
            if previous and any(
                p.name == c.name and p.ports.get("etcd_peer") != c.ports["etcd_peer"] for p in previous.clusters
            ):
                shutil.rmtree(Path(c.dir) / "etcd", ignore_errors=True)  # etcd pins its peer URL
            for sub in ("run", "logs", "pod-logs"):
                (Path(c.dir) / sub).mkdir(parents=True, exist_ok=True)
        layout = Layout(
            state_dir=str(self.state_dir),
            kubeconfig=str(self.kubeconfig_path),
            ca_file=str(self.pki.ca_crt),
            bin_dir=str(bins.dir),
            region=self.region,
            clusters=clusters,
            started_at=time.time(),
        )
        write_layout(self.state_dir, layout)
        write_kubeconfig(self.kubeconfig_path, clusters, self.pki.ca_crt, self.pki.admin_token)
        try:
            with ThreadPoolExecutor(max_workers=len(clusters)) as pool:
                list(pool.map(lambda c: self._start_cluster(c, bins, t0, timeout, on_ready), clusters))
        except BaseException:
            # Leave nothing half-started behind; the error carries the log tail.
            self._down()
            raise
        layout.startup_seconds = round(time.monotonic() - t0, 2)
        write_layout(self.state_dir, layout)
        self.timings["total"] = layout.startup_seconds
        return clusters

    def _start_cluster(
        self,
        c: ClusterInfo,
        bins: _binaries.Binaries,
        t0: float,
        timeout: float,
        on_ready: Callable[[ClusterInfo], None],
    ) -> None:
        env = {"PATH": SAFE_PATH, "HOME": c.dir, "LANG": "C.UTF-8"}
        deadline = t0 + timeout
        for comp in cluster_components(c, bins, self.pki, write=True, **self._component_opts()):
            proc = self._proc(c, comp.name)
            proc.start(comp.argv, env=env | (comp.env or {}), cwd=Path(c.dir))
            remaining = max(5.0, min(comp.timeout, deadline - time.monotonic()))
            procs.wait_until(lambda comp=comp: check(comp), remaining, proc=proc, what=comp.probe_url or "alive")
            with _TIMINGS_LOCK:
                self.timings[f"{c.name}/{comp.name}"] = round(time.monotonic() - t0, 2)
            if comp.name == "kube-apiserver" and c.role == "member":
                from .nodes import ensure_kwok_crds

                ensure_kwok_crds(self, c, deadline=deadline)  # kwok watches each pod's rules
        from .nodes import ensure_nodes, wait_default_service_account

        if c.role == "member":
            ensure_nodes(self, c, self.nodes_per_member, deadline=deadline)
        wait_default_service_account(self, c, deadline=deadline)
        with _TIMINGS_LOCK:
            self.timings[f"{c.name}/ready"] = round(time.monotonic() - t0, 2)
        on_ready(c)

    def _down(self) -> list[str]:
        layout = read_layout(self.state_dir)
        if layout is None:
            return []

        def stop_cluster(c: ClusterInfo) -> None:
            for name in reversed(c.components):  # as recorded at start (older layouts had other names)
                self._proc(c, name).stop()

        with ThreadPoolExecutor(max_workers=max(1, len(layout.clusters))) as pool:
            list(pool.map(stop_cluster, layout.clusters))
        return self.leftover_pids()

    def leftover_pids(self) -> list[str]:
        """Processes still running whose command line mentions this state dir (should be none)."""
        out = []
        needle = str(self.state_dir).encode()
        mine = _ancestors()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) in mine:
                continue
            with contextlib.suppress(OSError):
                cmd = (entry / "cmdline").read_bytes()
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if needle in cmd and stat[0] != "Z":
                    text = cmd.replace(b"\0", b" ").decode(errors="replace")[:200]
                    out.append(f"{entry.name} {text}")
        return out


_TIMINGS_LOCK = threading.Lock()


def _ancestors() -> set[int]:
    """This process and its ancestors (they may mention the state dir on their command line)."""
    out, pid = set(), os.getpid()
    while pid > 1 and pid not in out:
        out.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


__all__ = ["ClusterInfo", "ComponentError", "LocalControlPlane"]
