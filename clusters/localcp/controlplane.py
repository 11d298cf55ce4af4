"""A real local Kubernetes control plane: one host cluster plus N member clusters.

Each cluster has its own etcd and kube-apiserver on free loopback ports. The host also runs a
kube-controller-manager (namespaces, service accounts, garbage collection). Members add a
kube-scheduler, a kwok controller simulating ``nodes_per_member`` Nodes (status, pod lifecycle, logs,
exec, attach) and a log pump writing CRI lines that kwok serves as every pod's log.

Security: kwok's exec runs a real shell on this machine (as this user) in ``<cluster>/exec``, and kwok's
own server has no authentication. Everything listens on 127.0.0.1 only; never expose these ports.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import binaries as _binaries
from . import kwokcfg, procs
from .layout import HOST, ClusterInfo, Layout, member_names, read_layout, write_kubeconfig, write_layout
from .pki import PKI, ensure_pki
from .procs import ComponentError, Proc

SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HOST_COMPONENTS = ["etcd", "kube-apiserver", "kube-controller-manager"]
MEMBER_COMPONENTS = [*HOST_COMPONENTS, "kube-scheduler", "kwok", "logpump"]
PORT_NAMES = {
    "etcd": ("etcd", "etcd_peer"),
    "kube-apiserver": ("apiserver",),
    "kube-controller-manager": ("controller_manager",),
    "kube-scheduler": ("scheduler",),
    "kwok": ("kwok",),
}


@dataclass
class _Component:
    name: str
    argv: list[str]
    probe_url: str | None  # None: alive is enough
    ca: Path | None = None
    insecure: bool = False
    token: str | None = None
    timeout: float = 120.0


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
    ) -> None:
        self.state_dir = Path(state_dir).expanduser().resolve()
        self.members = members
        self.nodes_per_member = nodes_per_member
        self.region = region
        self.build_missing = build_missing
        self.job_complete_delay_ms = job_complete_delay_ms
        self.apiserver_extra_args = dict(apiserver_extra_args or {})
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
        layout = read_layout(self.state_dir)
        return layout.clusters if layout else self._plan(None)

    def cluster(self, name: str) -> ClusterInfo:
        for c in self.clusters:
            if c.name == name:
                return c
        raise KeyError(name)

    def _plan(self, previous: Layout | None) -> list[ClusterInfo]:
        """Cluster list with ports: reuse the previous ports when they are still free."""
        prev = {c.name: c for c in previous.clusters} if previous else {}
        names = [(HOST, "host", f"{self.region}a")] + [
            (n, "member", f"{self.region}{chr(ord('a') + i)}")
            for i, n in enumerate(member_names(self.members))
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
                    pod_log_file=str(cdir / "pod-logs" / "containers.log") if role == "member" else None,
                    exec_workdir=str(cdir / "exec") if role == "member" else None,
                )
            )
        return out

    def _proc(self, c: ClusterInfo, comp: str) -> Proc:
        d = Path(c.dir)
        return Proc(comp, d / "run", d / "logs")

    # --------------------------------------------------------------- commands
    def _components(self, c: ClusterInfo, bins: _binaries.Binaries, write: bool = False) -> list[_Component]:
        """Command lines and probes of one cluster; ``write`` also writes their config files."""
        d, p, pk = Path(c.dir), c.ports, self.pki
        kcfg = d / "admin.kubeconfig"
        if write:
            write_kubeconfig(kcfg, [c], pk.ca_crt, pk.admin_token)
            pk.ensure_sa_keypair(c.name)
        sa_key, sa_pub = pk.sa_key(c.name), pk.sa_pub(c.name)
        lo = "127.0.0.1"
        etcd = _Component(
            "etcd",
            [
                str(bins.etcd),
                "--name",
                "node0",
                "--data-dir",
                str(d / "etcd"),
                "--listen-client-urls",
                f"http://{lo}:{p['etcd']}",
                "--advertise-client-urls",
                f"http://{lo}:{p['etcd']}",
                "--listen-peer-urls",
                f"http://{lo}:{p['etcd_peer']}",
                "--initial-advertise-peer-urls",
                f"http://{lo}:{p['etcd_peer']}",
                "--initial-cluster",
                f"node0=http://{lo}:{p['etcd_peer']}",
                "--auto-compaction-retention=1",
                "--unsafe-no-fsync",
                "--log-level=warn",
            ],
            f"http://{lo}:{p['etcd']}/health",
            timeout=60,
        )
        api_args = {
            "etcd-servers": f"http://{lo}:{p['etcd']}",
            "bind-address": lo,
            "advertise-address": lo,
            "secure-port": str(p["apiserver"]),
            "tls-cert-file": str(pk.serving_crt),
            "tls-private-key-file": str(pk.serving_key),
            "client-ca-file": str(pk.ca_crt),
            "token-auth-file": str(pk.tokens_csv),
            "authorization-mode": "Node,RBAC",
            "allow-privileged": "true",
            "service-cluster-ip-range": "10.96.0.0/16",
            "service-account-issuer": f"https://kubernetes.default.svc.cluster.local/{c.name}",
            "service-account-key-file": str(sa_pub),
            "service-account-signing-key-file": str(sa_key),
            "kubelet-preferred-address-types": "InternalIP",
            "cert-dir": str(d / "apiserver"),
            "profiling": "false",
            "event-ttl": "1h",
        } | self.apiserver_extra_args
        apiserver = _Component(
            "kube-apiserver",
            [str(bins.kube_apiserver), *(f"--{k}={v}" for k, v in api_args.items())],
            f"https://{lo}:{p['apiserver']}/readyz",
            ca=pk.ca_crt,
            token=pk.admin_token,
            timeout=180,
        )
        kcm = _Component(
            "kube-controller-manager",
            [
                str(bins.kube_controller_manager),
                f"--kubeconfig={kcfg}",
                f"--bind-address={lo}",
                f"--secure-port={p['controller_manager']}",
                "--leader-elect=false",
                f"--cluster-name={c.name}",
                f"--root-ca-file={pk.ca_crt}",
                f"--service-account-private-key-file={sa_key}",
                "--node-monitor-period=5s",
                "--node-monitor-grace-period=40s",
                f"--cert-dir={d / 'kcm'}",
                "--profiling=false",
            ],
            f"https://{lo}:{p['controller_manager']}/healthz",
            insecure=True,
        )
        comps = [etcd, apiserver, kcm]
        if c.role == "host":
            return comps
        sched = _Component(
            "kube-scheduler",
            [
                str(bins.kube_scheduler),
                f"--kubeconfig={kcfg}",
                f"--bind-address={lo}",
                f"--secure-port={p['scheduler']}",
                "--leader-elect=false",
                f"--cert-dir={d / 'scheduler'}",
                "--profiling=false",
            ],
            f"https://{lo}:{p['scheduler']}/healthz",
            insecure=True,
        )
        assert c.pod_log_file and c.exec_workdir
        kwok_cfg = d / "kwok.yaml"
        if write:
            kwok_cfg.write_text(
                kwokcfg.kwok_config(Path(c.pod_log_file), Path(c.exec_workdir), self.job_complete_delay_ms)
            )
        kwok = _Component(
            "kwok",
            [
                str(bins.kwok),
                f"--config={kwok_cfg}",
                f"--kubeconfig={kcfg}",
                f"--manage-nodes-with-annotation-selector={kwokcfg.KWOK_NODE_ANNOTATION}=fake",
                f"--node-ip={lo}",
                "--node-name=localhost",
                f"--node-port={p['kwok']}",
                f"--server-address={lo}:{p['kwok']}",
                f"--tls-cert-file={pk.serving_crt}",
                f"--tls-private-key-file={pk.serving_key}",
                "--node-lease-duration-seconds=40",
                "--cidr=10.244.0.0/16",
            ],
            f"http://{lo}:{p['kwok']}/healthz",
            timeout=60,
        )
        pump = _Component(
            "logpump",
            [
                sys.executable,
                str(Path(__file__).with_name("logpump.py")),
                c.pod_log_file,
                c.name,
            ],
            None,
        )
        return [*comps, sched, kwok, pump]

    # ---------------------------------------------------------------- health
    def _check(self, comp: _Component) -> bool:
        if comp.probe_url is None:
            return True
        if comp.insecure:
            return _probe_insecure(comp.probe_url)
        return procs.probe(comp.probe_url, comp.ca, comp.token)

    def _component_status(self, c: ClusterInfo, comp: _Component) -> dict[str, Any]:
        proc = self._proc(c, comp.name)
        pid = proc.pid()
        healthy = pid is not None and self._check(comp)
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
            comps = {comp.name: self._component_status(c, comp) for comp in self._components(c, bins)}
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
    def up(self, timeout: float = 300.0) -> list[ClusterInfo]:
        """Start everything (or reuse a healthy running control plane). Returns the clusters."""
        t0 = time.monotonic()
        previous = read_layout(self.state_dir)
        want = [HOST, *member_names(self.members)]
        if previous and [c.name for c in previous.clusters] == want and self.is_healthy():
            from .nodes import ensure_nodes  # local import: kubernetes client is slow to import

            for c in previous.clusters:
                if c.role == "member" and c.nodes != self.nodes_per_member:
                    ensure_nodes(self, c, self.nodes_per_member)
            write_layout(self.state_dir, previous)
            self.timings["reused"] = time.monotonic() - t0
            return previous.clusters
        if previous:
            self.down()
        bins = _binaries.locate(_binaries.CONTROL_PLANE, build_missing=self.build_missing)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        _ = self.pki
        clusters = self._plan(previous)
        for c in clusters:
            if previous and any(
                p.name == c.name and p.ports.get("etcd_peer") != c.ports["etcd_peer"]
                for p in previous.clusters
            ):
                shutil.rmtree(Path(c.dir) / "etcd", ignore_errors=True)  # etcd pins its peer URL
            for sub in ("run", "logs", "pod-logs", "exec"):
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
                list(pool.map(lambda c: self._start_cluster(c, bins, t0, timeout), clusters))
        except BaseException:
            # Leave nothing half-started behind; the error carries the log tail.
            self.down()
            raise
        layout.startup_seconds = round(time.monotonic() - t0, 2)
        write_layout(self.state_dir, layout)
        self.timings["total"] = layout.startup_seconds
        return clusters

    def _start_cluster(self, c: ClusterInfo, bins: _binaries.Binaries, t0: float, timeout: float) -> None:
        env = {"PATH": SAFE_PATH, "HOME": c.dir, "LANG": "C.UTF-8"}
        deadline = t0 + timeout
        for comp in self._components(c, bins, write=True):
            proc = self._proc(c, comp.name)
            proc.start(comp.argv, env=env, cwd=Path(c.dir))
            remaining = max(5.0, min(comp.timeout, deadline - time.monotonic()))
            procs.wait_until(
                lambda comp=comp: self._check(comp), remaining, proc=proc, what=comp.probe_url or "alive"
            )
            with _TIMINGS_LOCK:
                self.timings[f"{c.name}/{comp.name}"] = round(time.monotonic() - t0, 2)
        from .nodes import ensure_nodes, wait_default_service_account

        if c.role == "member":
            ensure_nodes(self, c, self.nodes_per_member, deadline=deadline)
        wait_default_service_account(self, c, deadline=deadline)
        with _TIMINGS_LOCK:
            self.timings[f"{c.name}/ready"] = round(time.monotonic() - t0, 2)

    def down(self) -> list[str]:
        """Stop every component of every cluster (reverse order). Returns leftover pids (empty on success)."""
        layout = read_layout(self.state_dir)
        if layout is None:
            return []
        order = list(reversed(MEMBER_COMPONENTS))

        def stop_cluster(c: ClusterInfo) -> None:
            for name in order:
                if name in c.components:
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


def _probe_insecure(url: str) -> bool:
    import ssl
    import urllib.request

    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=3, context=ctx) as resp:  # noqa: S310
            return resp.status == 200
    except OSError:
        return False


__all__ = ["ClusterInfo", "ComponentError", "LocalControlPlane"]
