"""A real node in the local host cluster: kubelet and kube-proxy (built from the pinned Kubernetes module by
build_binaries.sh ``node``) on containerd (tests/harness/containerd.py), beside the local clusters' kwok nodes.

The host cluster runs no scheduler of its own (devtools/localcp): the node brings one. The kubelet joins with a client
certificate the harness issues from the control plane's CA (``system:node:real-0`` in ``system:nodes``: the Node
authorizer's), registers tainted and labelled ``pinconsole.dev/real-node`` so only pods that ask for it land there,
and runs on this host's terms: cgroupfs on hybrid cgroup v1, no swap check, ``oomScoreAdj: 0`` (root lacks
CAP_SYS_RESOURCE), no eviction thresholds. kube-proxy (iptables mode) serves the Services; ``clusterdns`` the Service
names; the pods' network is a bridge of the harness's, whose address is the node's. The kubelet's port accepts
anonymous requests (the local apiservers have no kubelet client certificate): an iptables rule keeps the pods off it.

One real node per machine at a time (a file lock): the bridge, the iptables chains and the kernel tunables the
kubelet sets are the machine's. ``stop`` removes everything, whatever happened, and returns what is left.
"""

from __future__ import annotations

import contextlib
import fcntl
import ssl
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import yaml
from kubernetes import client as k8s

from devtools.bootstrap import cache_dir
from devtools.localcp import binaries
from devtools.localcp.layout import ClusterInfo
from devtools.localcp.nodes import api_client
from devtools.localcp.pki import PKI, issue_client_cert
from devtools.localcp.procs import Proc, free_port, probe, wait_until
from tests.harness.clusterdns import ClusterDNS
from tests.harness.containerd import Bridge, Containerd, mounts_under, network_rules, processes_mentioning
from tests.harness.forwarder import TcpForwarder

NODE_NAME = "real-0"
NODE_LABEL = "pinconsole.dev/real-node"
BRIDGE = Bridge("pcnode0", "10.222.0.0/24", "10.222.0.1")
# What the kubelet's container manager sets (setupKernelTunables); restored when the node stops.
KERNEL_TUNABLES = ("vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
                   "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes")  # fmt: skip
CGROUP_ROOT = Path("/sys/fs/cgroup")
NODE_BINARIES = ("kubelet", "kube-proxy", "kube-scheduler")
API_SLICE = "kubernetes-real-node"


@dataclass
class RealNode:
    dir: Path
    host: ClusterInfo
    pki: PKI
    kubeconfig: Path  # the local clusters' (its admin context ``host``)
    sandbox_image: str
    tunables: dict[str, str] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    dns: ClusterDNS | None = None
    api_forwarder: TcpForwarder | None = None
    _lock: IO[str] | None = None

    @property
    def containerd(self) -> Containerd:
        return Containerd(self.dir / "containerd", BRIDGE, self.sandbox_image)

    def proc(self, name: str) -> Proc:
        return Proc(name, self.dir / "run", self.dir / "logs")

    def core(self) -> k8s.CoreV1Api:
        return k8s.CoreV1Api(api_client(str(self.kubeconfig), self.host.context))

    def discovery(self) -> k8s.DiscoveryV1Api:
        return k8s.DiscoveryV1Api(api_client(str(self.kubeconfig), self.host.context))

    def start(self) -> None:
        """Lock, bridge, containerd, scheduler, kubelet, kube-proxy and DNS, in that order; Ready when it returns."""
        self._lock = (cache_dir() / "realnode.lock").open("w")
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        bins = binaries.Binaries(binaries.default_bin_dir())
        if bins.missing(NODE_BINARIES):
            bins = binaries.Binaries(binaries.build("node"))  # the first time on a machine: minutes
        self.ports = {name: free_port() for name in ("kubelet", "kubelet_healthz", "scheduler", "proxy_healthz",
                                                     "proxy_metrics")}  # fmt: skip
        BRIDGE.create()
        self.tunables = {name: _sysctl(name) for name in KERNEL_TUNABLES}
        _iptables("-I", *self._kubelet_guard())
        self.containerd.start()
        self._start_scheduler(bins)
        self._start_kubelet(bins)
        self._start_kube_proxy(bins)
        self.dns = ClusterDNS(self.core(), BRIDGE.gateway)
        self.dns.start()
        self._publish_apiserver()

    def _publish_apiserver(self) -> None:
        """The `kubernetes` Service's endpoint, which the apiserver cannot publish: it advertises 127.0.0.1, which
        an Endpoints object refuses ("may not be in the loopback range") and a pod could not reach. A forwarder on
        the node's address stands in for it, named by an EndpointSlice of the Service's beside the apiserver's."""
        self.api_forwarder = TcpForwarder(("127.0.0.1", int(self.host.server.rsplit(":", 1)[1])), host=BRIDGE.gateway)
        self.api_forwarder.start()
        slice_ = {
            "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
            "metadata": {"name": API_SLICE, "labels": {"kubernetes.io/service-name": "kubernetes",
                                                        "endpointslice.kubernetes.io/managed-by": "pinconsole"}},
            "endpoints": [{"addresses": [BRIDGE.gateway], "conditions": {"ready": True}}],
            "ports": [{"name": "https", "port": self.api_forwarder.port, "protocol": "TCP"}],
        }  # fmt: skip
        with contextlib.suppress(k8s.ApiException):
            self.discovery().delete_namespaced_endpoint_slice(API_SLICE, "default")
        self.discovery().create_namespaced_endpoint_slice("default", slice_)

    def _kubelet_guard(self) -> tuple[str, ...]:
        return ("INPUT", "-i", BRIDGE.name, "-p", "tcp", "--dport", str(self.ports["kubelet"]), "-j", "DROP")

    def _client_kubeconfig(self, name: str, cn: str, org: str | None) -> Path:
        crt, key = self.dir / "pki" / f"{name}.crt", self.dir / "pki" / f"{name}.key"
        crt.parent.mkdir(parents=True, exist_ok=True)
        issue_client_cert(self.pki, crt, key, cn, org)
        path = self.dir / f"{name}.kubeconfig"
        cluster = {"server": self.host.server, "certificate-authority": str(self.pki.ca_crt)}
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "host",
            "clusters": [{"name": "host", "cluster": cluster}],
            "users": [{"name": name, "user": {"client-certificate": str(crt), "client-key": str(key)}}],
            "contexts": [{"name": "host", "context": {"cluster": "host", "user": name}}],
        }))  # fmt: skip
        return path

    def _start_scheduler(self, bins: binaries.Binaries) -> None:
        proc = self.proc("kube-scheduler")
        proc.start([str(bins.kube_scheduler), f"--kubeconfig={Path(self.host.dir) / 'admin.kubeconfig'}",
                    "--leader-elect=false", "--bind-address=127.0.0.1", f"--secure-port={self.ports['scheduler']}",
                    f"--cert-dir={self.dir / 'scheduler'}"])  # fmt: skip
        url = f"https://127.0.0.1:{self.ports['scheduler']}/healthz"
        wait_until(lambda: _probe_insecure(url), 120, proc=proc, what="kube-scheduler /healthz")

    def _start_kubelet(self, bins: binaries.Binaries) -> None:
        config = {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "address": BRIDGE.gateway,
            "port": self.ports["kubelet"],
            "readOnlyPort": 0,
            "healthzBindAddress": "127.0.0.1",
            "healthzPort": self.ports["kubelet_healthz"],
            "authentication": {"anonymous": {"enabled": True}, "webhook": {"enabled": False}},
            "authorization": {"mode": "AlwaysAllow"},
            "cgroupDriver": "cgroupfs",
            "failSwapOn": False,
            "failCgroupV1": False,
            "oomScoreAdj": 0,
            "resolvConf": "/etc/resolv.conf",
            "clusterDomain": "cluster.local",
            "clusterDNS": [BRIDGE.gateway],
            "containerRuntimeEndpoint": f"unix://{self.containerd.socket}",
            "registerWithTaints": [{"key": NODE_LABEL, "value": "true", "effect": "NoSchedule"}],
            "evictionHard": {
                "memory.available": "0%",
                "nodefs.available": "0%",
                "nodefs.inodesFree": "0%",
                "imagefs.available": "0%",
            },
            "imageGCHighThresholdPercent": 100,
            "serializeImagePulls": False,
            "maxPods": 40,
            "rotateCertificates": False,
            "shutdownGracePeriod": "0s",
        }
        path = self.dir / "kubelet.yaml"
        path.write_text(yaml.safe_dump(config))
        kubeconfig = self._client_kubeconfig("kubelet", f"system:node:{NODE_NAME}", "system:nodes")
        proc = self.proc("kubelet")
        proc.start([str(bins.path("kubelet")), f"--config={path}", f"--kubeconfig={kubeconfig}",
                    f"--hostname-override={NODE_NAME}", f"--node-ip={BRIDGE.gateway}",
                    f"--node-labels={NODE_LABEL}=true", f"--root-dir={self.dir / 'kubelet'}",
                    f"--cert-dir={self.dir / 'kubelet-pki'}", "--v=1"])  # fmt: skip
        wait_until(self.ready, 180, proc=proc, what=f"node {NODE_NAME} Ready", interval=1)

    def ready(self) -> bool:
        try:
            node = self.core().read_node(NODE_NAME)
        except k8s.ApiException:
            return False
        return any(c.type == "Ready" and c.status == "True" for c in node.status.conditions or [])

    def _start_kube_proxy(self, bins: binaries.Binaries) -> None:
        config = {
            "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
            "kind": "KubeProxyConfiguration",
            "mode": "iptables",
            "clientConnection": {"kubeconfig": str(self._client_kubeconfig("kube-proxy", "system:kube-proxy", None))},
            "hostnameOverride": NODE_NAME,
            "clusterCIDR": BRIDGE.subnet,
            "healthzBindAddress": f"127.0.0.1:{self.ports['proxy_healthz']}",
            "metricsBindAddress": f"127.0.0.1:{self.ports['proxy_metrics']}",
            # 0: leave the machine's conntrack settings alone; no route_localnet on every interface.
            "conntrack": {"maxPerCore": 0, "min": 0, "tcpEstablishedTimeout": "0s", "tcpCloseWaitTimeout": "0s"},
            "iptables": {"localhostNodePorts": False, "syncPeriod": "30s", "minSyncPeriod": "1s"},
            "nodePortAddresses": [f"{BRIDGE.gateway}/32"],
        }
        path = self.dir / "kube-proxy.yaml"
        path.write_text(yaml.safe_dump(config))
        proc = self.proc("kube-proxy")
        proc.start([str(bins.path("kube-proxy")), f"--config={path}", "--v=1"])
        url = f"http://127.0.0.1:{self.ports['proxy_healthz']}/healthz"
        wait_until(lambda: probe(url), 120, proc=proc, what="kube-proxy /healthz")

    def stop(self) -> list[str]:
        """Everything the node started, stopped and removed; returns what is left (empty when all is gone)."""
        if self.dns is not None:
            self.dns.stop()
        if self.api_forwarder is not None:
            self.api_forwarder.stop()
            with contextlib.suppress(Exception):
                self.discovery().delete_namespaced_endpoint_slice(API_SLICE, "default")
        with contextlib.suppress(Exception):
            self._drain()
        bins = binaries.Binaries(binaries.default_bin_dir())
        self.proc("kube-proxy").stop()
        subprocess.run([str(bins.path("kube-proxy")), "--cleanup"], capture_output=True, timeout=120, check=False)
        self.proc("kubelet").stop()
        self.proc("kube-scheduler").stop()
        self.containerd.stop()
        for mount in mounts_under(self.dir):
            subprocess.run(["umount", "--lazy", mount], capture_output=True, timeout=30, check=False)
        _remove_cgroups("kubepods")
        _remove_kubelet_chains()
        if self.ports:
            _iptables("-D", *self._kubelet_guard())
        for name, value in self.tunables.items():
            _sysctl(name, value)
        with contextlib.suppress(Exception):
            self.core().delete_node(NODE_NAME)
        left = self.leftovers()
        if self._lock is not None:
            self._lock.close()
        return left

    def _drain(self) -> None:
        """The pods on the node deleted at once: the kubelet stops them through the CRI (and CNI tears their network
        down), which a kill of containerd's tasks would not."""
        core = self.core()
        selector = f"spec.nodeName={NODE_NAME}"
        for pod in core.list_pod_for_all_namespaces(field_selector=selector).items:
            with contextlib.suppress(k8s.ApiException):
                core.delete_namespaced_pod(pod.metadata.name, pod.metadata.namespace, grace_period_seconds=0)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and self.containerd.proc.alive() and self.containerd.tasks():
            time.sleep(1)

    def leftovers(self) -> list[str]:
        """What the node would leave on the machine: processes, tasks, mounts, cgroups, iptables chains, the bridge."""
        left = [f"process {pid}: {cmd}" for pid, cmd in processes_mentioning(str(self.dir))]
        if self.containerd.proc.alive():
            left += [f"containerd task {task}" for task in self.containerd.tasks()]
        left += [f"mount {mount}" for mount in mounts_under(self.dir)]
        left += [f"cgroup {path}" for path in CGROUP_ROOT.glob("*/kubepods")]
        left += [f"iptables chain {chain}" for chain in _kube_chains()]
        left += [f"iptables rule {rule}" for rule in network_rules()]
        if BRIDGE.exists():
            left.append(f"bridge {BRIDGE.name}")
        return left


def _probe_insecure(url: str) -> bool:
    """The scheduler's /healthz: it serves a certificate it made itself."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=3, context=context) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _sysctl(name: str, value: str | None = None) -> str:
    path = Path("/proc/sys") / name
    if value is not None:
        path.write_text(value)
    return path.read_text().strip()


def _iptables(*args: str) -> None:
    subprocess.run(["iptables", "-w", *args], capture_output=True, timeout=60, check=False)


def _kube_chains() -> list[str]:
    chains = []
    for tool in ("iptables-save", "ip6tables-save"):
        out = subprocess.run([tool], capture_output=True, text=True, timeout=60, check=False).stdout
        chains += [f"{tool}: {line[1:].split()[0]}" for line in out.splitlines() if line.startswith(":KUBE-")]
    return chains


def _remove_kubelet_chains() -> None:
    """The kubelet's own chains (kube-proxy --cleanup removes kube-proxy's): KUBE-FIREWALL, which INPUT and OUTPUT
    jump to, and the KUBE-IPTABLES-HINT and KUBE-KUBELET-CANARY markers."""
    for tool in ("iptables", "ip6tables"):
        canaries = [("-t", table, "-X", "KUBE-KUBELET-CANARY") for table in ("mangle", "nat", "filter")]
        unlink = [("-D", hook, "-j", "KUBE-FIREWALL") for hook in ("INPUT", "OUTPUT")]
        firewall = [
            *unlink,
            ("-F", "KUBE-FIREWALL"),
            ("-X", "KUBE-FIREWALL"),
            ("-t", "mangle", "-X", "KUBE-IPTABLES-HINT"),
        ]
        for args in firewall + canaries:
            subprocess.run([tool, "-w", *args], capture_output=True, timeout=60, check=False)


def _remove_cgroups(name: str) -> None:
    """The kubelet's cgroup tree (``/kubepods`` in every hierarchy), deepest first: the kubelet leaves it."""
    for top in CGROUP_ROOT.glob(f"*/{name}"):
        for directory in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                directory.rmdir()
        with contextlib.suppress(OSError):
            top.rmdir()
