"""Command lines, probes and config files of the components of one local cluster."""

from __future__ import annotations

import ssl
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import binaries as _binaries
from . import kwokcfg, procs
from .layout import ClusterInfo, kubeconfig_dict, write_kubeconfig, write_kubeconfig_data
from .pki import PKI
from .pods import jail, podfs

HOST_COMPONENTS = ["etcd", "kube-apiserver", "kube-controller-manager"]
MEMBER_COMPONENTS = [*HOST_COMPONENTS, "kube-scheduler", "pods", "kwok"]
PORT_NAMES = {
    "etcd": ("etcd", "etcd_peer"),
    "kube-apiserver": ("apiserver",),
    "kube-controller-manager": ("controller_manager",),
    "kube-scheduler": ("scheduler",),
    "kwok": ("kwok",),
}


@dataclass
class Component:
    name: str
    argv: list[str]
    probe_url: str | None  # None: alive is enough
    ca: Path | None = None
    insecure: bool = False
    token: str | None = None
    timeout: float = 120.0
    ready_file: Path | None = None  # no probe URL: ready once this file exists
    env: dict[str, str] | None = None  # added to the control plane's minimal environment


def cluster_components(
    c: ClusterInfo,
    bins: _binaries.Binaries,
    pk: PKI,
    *,
    job_complete_delay_ms: int = 3000,
    apiserver_extra_args: dict[str, str] | None = None,
    log_archive_url: str = "",
    write: bool = False,
) -> list[Component]:
    """Command lines and probes of one cluster; ``write`` also writes their config files."""
    d, p = Path(c.dir), c.ports
    kcfg = d / "admin.kubeconfig"
    if write:
        write_kubeconfig(kcfg, [c], pk.ca_crt, pk.admin_token)
        pk.ensure_sa_keypair(c.name)
    sa_key, sa_pub = pk.sa_key(c.name), pk.sa_pub(c.name)
    lo = "127.0.0.1"
    etcd = Component(
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
    } | (apiserver_extra_args or {})
    apiserver = Component(
        "kube-apiserver",
        [str(bins.kube_apiserver), *(f"--{k}={v}" for k, v in api_args.items())],
        f"https://{lo}:{p['apiserver']}/readyz",
        ca=pk.ca_crt,
        token=pk.admin_token,
        timeout=180,
    )
    kcm = Component(
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
            # It only type-checks ValidatingAdmissionPolicies for status warnings (the apiserver enforces them either
            # way), compiling their CEL against the OpenAPI schemas: over 75 s of live tests, 8 of the host
            # controller-manager's 9 CPU seconds and 5 of the apiservers' 42 (bench/README.md, suite_idle.py).
            "--controllers=*,-validatingadmissionpolicy-status-controller",
        ],
        f"https://{lo}:{p['controller_manager']}/healthz",
        insecure=True,
    )
    comps = [etcd, apiserver, kcm]
    if c.role == "host":
        return comps
    sched = Component(
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
    assert c.pods_dir and c.pod_logs_dir
    jail_dir, broker_dir = d / "jail", d / "run" / "podsb"
    if write:
        broker_dir.mkdir(parents=True, exist_ok=True)
        (broker_dir / "broker.sock").unlink(missing_ok=True)  # its reappearance says the supervisor is ready
        jail.prepare(jail_dir)
        (jail_dir / "kwok.yaml").write_text(kwokcfg.kwok_config(jail.PODLOGS, podfs.POD_UID, job_complete_delay_ms))
        _write_jail_kubeconfig(jail_dir / "kubeconfig", c, pk)
    j = jail.JAIL_ROOT
    kwok_args = [
        f"--config={j}/kwok.yaml",
        f"--kubeconfig={j}/kubeconfig",
        f"--manage-nodes-with-annotation-selector={kwokcfg.KWOK_NODE_ANNOTATION}=fake",
        f"--node-ip={lo}",
        "--node-name=localhost",
        f"--node-port={p['kwok']}",
        f"--server-address={lo}:{p['kwok']}",
        f"--tls-cert-file={j}/serving.crt",
        f"--tls-private-key-file={j}/serving.key",
        "--node-lease-duration-seconds=40",
        "--cidr=10.244.0.0/16",
        "--enable-crds=" + ",".join(kwokcfg.PER_POD_KINDS),
    ]
    files = {
        "kwok": bins.kwok,
        "kwok.yaml": jail_dir / "kwok.yaml",
        "kubeconfig": jail_dir / "kubeconfig",
        "ca.crt": pk.ca_crt,
        "serving.crt": pk.serving_crt,
        "serving.key": pk.serving_key,
    }
    argv = jail.kwok_argv(
        _binaries.bwrap(), jail_dir, _binaries.podshim(), files, Path(c.pod_logs_dir), broker_dir, kwok_args
    )
    kwok = Component("kwok", argv, f"http://{lo}:{p['kwok']}/healthz", timeout=60)
    pods = Component(
        "pods",
        [
            sys.executable,
            "-m",
            "devtools.localcp.pods",
            f"--cluster={c.name}",
            f"--kubeconfig={kcfg}",
            f"--context={c.context}",
            f"--pods-dir={c.pods_dir}",
            f"--podlogs-dir={c.pod_logs_dir}",
            f"--broker-socket={broker_dir / 'broker.sock'}",
            f"--bwrap={_binaries.bwrap()}",
            *([f"--archive-url={log_archive_url}"] if log_archive_url else []),
        ],
        None,
        ready_file=broker_dir / "broker.sock",
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},  # runs from the source checkout
    )
    return [*comps, sched, pods, kwok]


def _write_jail_kubeconfig(path: Path, c: ClusterInfo, pk: PKI) -> None:
    """kwok's kubeconfig, naming the CA by its path inside the jail."""
    cfg = kubeconfig_dict([c], pk.ca_crt, pk.admin_token)
    cfg["clusters"][0]["cluster"]["certificate-authority"] = f"{jail.JAIL_ROOT}/ca.crt"
    write_kubeconfig_data(path, cfg)


# ---------------------------------------------------------------- health


def check(comp: Component) -> bool:
    """Readiness/health probe of one component."""
    if comp.probe_url is None:
        return comp.ready_file is None or comp.ready_file.exists()
    if comp.insecure:
        return probe_insecure(comp.probe_url)
    return procs.probe(comp.probe_url, comp.ca, comp.token)


def probe_insecure(url: str) -> bool:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=3, context=ctx) as resp:  # noqa: S310
            return resp.status == 200
    except OSError:
        return False
