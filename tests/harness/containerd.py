"""containerd from Debian for the real node (tests/harness/realnode.py): every file it keeps in one directory.

Its root, state, sockets and the pods' network namespaces live under ``dir`` (nothing in /var/lib/containerd or
/run/containerd but the shims' sockets); the CRI plugin runs pods with runc (cgroupfs), the CNI bridge, portmap and
loopback plugins from Debian's ``containernetworking-plugins`` on a bridge of the harness's, and a pause image built
here: ``FROM scratch`` plus a static pause binary (``pause/main.go``, what Kubernetes' pause.c does). What this host
needs (docs/development.md, "The chart on a real node"): ``restrict_oom_score_adj`` (root lacks CAP_SYS_RESOURCE, so
a negative OOM score adjustment fails and without it a sandbox never starts: "can't get final child's PID").

Images come from podman's store: ``podman save`` then ``ctr images import`` (no registry is reachable).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from devtools.bootstrap import cache_dir
from devtools.localcp.procs import Proc, start_ticks, wait_until
from tests.harness.podman import Podman
from tests.harness.services import ComponentFailed

PAUSE_SRC = Path(__file__).with_name("pause")
CNI_BIN = Path("/usr/lib/cni")
NAMESPACE = "k8s.io"  # the CRI plugin's containerd namespace
NETWORK = "pinconsole-node"  # the CNI network's name: its plugins' iptables rules carry it in a comment
UNUSED_PLUGINS = (
    "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
    "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp",
    "io.containerd.internal.v1.tracing",
)  # fmt: skip


@dataclass(frozen=True)
class Bridge:
    """The pods' network: a Linux bridge the harness creates (the node's IP is its gateway address)."""

    name: str
    subnet: str  # e.g. 10.222.0.0/24
    gateway: str  # e.g. 10.222.0.1

    def create(self) -> None:
        self.delete()
        prefix = self.subnet.split("/")[1]
        for args in (("link", "add", self.name, "type", "bridge"),
                     ("addr", "add", f"{self.gateway}/{prefix}", "dev", self.name),
                     ("link", "set", self.name, "up")):  # fmt: skip
            subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)

    def delete(self) -> None:
        subprocess.run(["ip", "link", "delete", self.name], capture_output=True, timeout=30, check=False)

    def exists(self) -> bool:
        return Path(f"/sys/class/net/{self.name}").exists()


def pause_binary() -> Path:
    """The static pause binary, built from ``pause/`` (Go, stdlib only) and cached by its source's hash."""
    digest = hashlib.sha256(b"".join((PAUSE_SRC / name).read_bytes() for name in ("go.mod", "main.go")))
    out = cache_dir() / "bin" / f"pause-{digest.hexdigest()[:12]}"
    if not os.access(out, os.X_OK):
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".tmp{os.getpid()}")
        env = dict(os.environ, CGO_ENABLED="0", GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
        subprocess.run(["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(tmp), "."], cwd=PAUSE_SRC,
                       env=env, check=True, capture_output=True, timeout=600)  # fmt: skip
        tmp.replace(out)
    return out


def pause_image(podman: Podman) -> str:
    """``localhost/pinconsole-pause:<binary's name>`` in podman's store: the pause binary on an empty image."""
    binary = pause_binary()
    ref = f"localhost/pinconsole-pause:{binary.name.removeprefix('pause-')}"
    if not podman.image_exists(ref):
        with tempfile.TemporaryDirectory(dir=podman.root / "tmp") as work:
            shutil.copy(binary, Path(work) / "pause")
            (Path(work) / "Containerfile").write_text(
                'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n'
            )
            podman("build", "--pull=never", "--tag", ref, work, timeout=300)
    return ref


@dataclass(frozen=True)
class Containerd:
    dir: Path
    bridge: Bridge
    sandbox_image: str

    @property
    def socket(self) -> Path:
        return self.dir / "containerd.sock"

    @property
    def proc(self) -> Proc:
        return Proc("containerd", self.dir, self.dir)

    def write_config(self) -> None:
        d = self.dir
        for sub in ("root", "state", "opt", "cni", "ipam"):
            (d / sub).mkdir(parents=True, exist_ok=True)
        cri = 'plugins."io.containerd.grpc.v1.cri"'
        (d / "config.toml").write_text(
            f'version = 2\nroot = "{d / "root"}"\nstate = "{d / "state"}"\noom_score = 0\n'
            f"disabled_plugins = {json.dumps(list(UNUSED_PLUGINS))}\n"
            f'[grpc]\naddress = "{self.socket}"\n[ttrpc]\naddress = "{d / "containerd.ttrpc.sock"}"\n'
            f'[plugins."io.containerd.internal.v1.opt"]\npath = "{d / "opt"}"\n'
            f'[{cri}]\nsandbox_image = "{self.sandbox_image}"\nrestrict_oom_score_adj = true\n'
            "netns_mounts_under_state_dir = true\nenable_selinux = false\n"
            f'[{cri}.containerd]\nsnapshotter = "overlayfs"\ndefault_runtime_name = "runc"\n'
            f'[{cri}.containerd.runtimes.runc]\nruntime_type = "io.containerd.runc.v2"\n'
            f"[{cri}.containerd.runtimes.runc.options]\nSystemdCgroup = false\n"
            f'[{cri}.cni]\nbin_dir = "{CNI_BIN}"\nconf_dir = "{d / "cni"}"\n'
        )
        ipam = {"type": "host-local", "ranges": [[{"subnet": self.bridge.subnet, "gateway": self.bridge.gateway}]],
                "routes": [{"dst": "0.0.0.0/0"}], "dataDir": str(d / "ipam")}  # fmt: skip
        network = {
            "cniVersion": "1.0.0",
            "name": NETWORK,
            "plugins": [
                {
                    "type": "bridge",
                    "bridge": self.bridge.name,
                    "isGateway": True,
                    "ipMasq": True,
                    "hairpinMode": True,
                    "ipam": ipam,
                },
                {"type": "portmap", "capabilities": {"portMappings": True}},
            ],
        }
        (d / "cni" / "10-pinconsole.conflist").write_text(json.dumps(network, indent=1))

    def start(self) -> None:
        for plugin in ("bridge", "portmap", "loopback", "host-local"):
            if not (CNI_BIN / plugin).exists():
                raise ComponentFailed(f"CNI plugin {plugin} missing in {CNI_BIN} (Debian: containernetworking-plugins)")
        if shutil.which("containerd") is None:
            raise ComponentFailed("containerd not found (apt-get install containerd)")
        self.write_config()
        self.proc.start(["containerd", "--config", str(self.dir / "config.toml")], cwd=self.dir)
        wait_until(lambda: self.ctr("version", check=False).returncode == 0, 60, proc=self.proc, what="containerd")

    def ctr(self, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["ctr", "--address", str(self.socket), "--namespace", NAMESPACE, *args],
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)  # fmt: skip
        if check and done.returncode != 0:
            raise ComponentFailed(f"ctr {' '.join(args[:3])} exited with {done.returncode}: {done.stderr[-2000:]}")
        return done

    def import_image(self, podman: Podman, ref: str) -> None:
        """An image of podman's store into containerd's (the CRI plugin's namespace), under the same name."""
        with tempfile.TemporaryDirectory(dir=self.dir) as work:
            archive = Path(work) / "image.tar"
            podman("save", "--format", "docker-archive", "--output", str(archive), ref, timeout=600)
            self.ctr("images", "import", "--no-unpack", str(archive), timeout=600)

    def images(self) -> list[str]:
        return self.ctr("images", "list", "--quiet").stdout.split()

    def tasks(self) -> list[str]:
        """The running containers' tasks (pods' sandboxes and containers): none once the node is stopped."""
        lines = self.ctr("tasks", "list", check=False).stdout.splitlines()[1:]
        return [line.split()[0] for line in lines if line.strip()]

    def remove_all(self) -> None:
        """Kills and removes every task and container left (the kubelet stops the pods it knows first)."""
        for task in self.tasks():
            self.ctr("tasks", "kill", "--signal", "SIGKILL", task, check=False)
        for task in self.tasks():
            self.ctr("tasks", "delete", "--force", task, check=False)
        for container in self.ctr("containers", "list", "--quiet", check=False).stdout.split():
            self.ctr("containers", "delete", container, check=False)

    def stop(self) -> None:
        if self.proc.alive():
            self.remove_all()
        self.proc.stop()
        # What the CRI would have torn down had the kubelet stopped every pod: the shims (they outlive containerd)
        # with the containers under them, the pods' network rules, their mounts.
        kill_trees([pid for pid, _ in processes_mentioning(str(self.dir))])
        remove_network_rules()
        for mount in mounts_under(self.dir):  # the pods' network namespaces, rootfs and shm mounts
            subprocess.run(["umount", "--lazy", mount], capture_output=True, timeout=30, check=False)
        self.bridge.delete()


def mounts_under(root: Path) -> list[str]:
    """Mount points under ``root``, deepest first."""
    prefix = f"{root}/"
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return sorted((p for p in points if p.startswith(prefix)), key=len, reverse=True)


def processes_mentioning(text: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose command line contains ``text`` (this one excepted)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            with contextlib.suppress(OSError):
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                if text in cmd:
                    found.append((int(entry.name), cmd[:200]))
    return found


def kill_trees(pids: list[int]) -> None:
    """SIGKILL ``pids`` and every descendant (a shim's containers run in pid namespaces of their own)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    todo, seen = list(pids), set()
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo += children.get(pid, [])
    for pid in seen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    # SIGKILL is delivered at once but a process in the middle of tearing down its mounts takes a moment to exit.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(start_ticks(pid) is not None for pid in seen):
        time.sleep(0.1)


def network_rules() -> list[str]:
    """The iptables rules the CNI plugins made for this network's pods (``iptables-save`` lines)."""
    out = subprocess.run(["iptables-save", "-t", "nat"], capture_output=True, text=True, timeout=60, check=False)
    return [line for line in out.stdout.splitlines() if line.startswith("-A ") and f'name: \\"{NETWORK}\\"' in line]


def remove_network_rules() -> None:
    """Deletes this network's rules and the per-pod chains they jump to (what the bridge and portmap plugins' DEL
    does when a sandbox is stopped through the CRI)."""
    chains = set()
    for line in network_rules():
        rule = shlex.split(line)[1:]
        if "-j" in rule and rule[rule.index("-j") + 1].startswith("CNI-"):
            chains.add(rule[rule.index("-j") + 1])
        subprocess.run(["iptables", "-w", "-t", "nat", "-D", *rule], capture_output=True, timeout=60, check=False)
    for chain in chains:
        for flag in ("-F", "-X"):
            subprocess.run(["iptables", "-w", "-t", "nat", flag, chain], capture_output=True, timeout=60, check=False)
