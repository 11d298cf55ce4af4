"""podman with all its state in one directory of the harness's, and containers that are always removed.

The state (image store, runtime state, configuration) is kept under ``$PINCONSOLE_CACHE/podman`` so the images built
once are there for the next session; ``CONTAINERS_CONF`` and ``CONTAINERS_STORAGE_CONF`` point podman and buildah at
it, so nothing of the machine's own configuration or storage is read or written. runc, cgroupfs and lowered ulimits:
what works on these hosts (crun fails on hybrid cgroups; raising rlimits needs CAP_SYS_RESOURCE, which root lacks).

Container processes run under conmon, outside the test's process group: every container started here carries the
label ``pinconsole.owner=<pid of the session>``, ``running`` removes its container on the way out (also when the
test fails), and ``reap_abandoned`` removes what a killed session left.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from devtools.bootstrap import cache_dir
from tests.harness.services import ComponentFailed

OWNER_LABEL = "pinconsole.owner"
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")


def _write_if_changed(path: Path, text: str) -> None:
    """Atomically, and only when different: other sessions' podman commands read these files at any moment."""
    if path.exists() and path.read_text() == text:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}")
    tmp.write_text(text)
    tmp.replace(path)


@dataclass(frozen=True)
class Podman:
    root: Path

    @classmethod
    def in_cache(cls) -> Podman:
        podman = cls(cache_dir() / "podman")
        podman.configure()
        return podman

    def configure(self) -> None:
        for tool in ("podman", "buildah", "runc", "mmdebstrap"):
            if shutil.which(tool) is None:
                raise ComponentFailed(f"{tool} not found (apt-get install podman buildah runc mmdebstrap)")
        for sub in ("storage", "run", "tmp", "cni", "volumes"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        _write_if_changed(
            self.root / "containers.conf",
            "[containers]\n"
            'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n'
            "[engine]\n"
            'runtime = "runc"\n'
            'cgroup_manager = "cgroupfs"\n'
            'events_logger = "file"\n'
            f'events_logfile_path = "{self.root / "events.log"}"\n'
            f'tmp_dir = "{self.root / "tmp"}"\n'
            f'volume_path = "{self.root / "volumes"}"\n'
            "[network]\n"
            f'network_config_dir = "{self.root / "cni"}"\n',
        )
        _write_if_changed(
            self.root / "storage.conf",
            f'[storage]\ndriver = "overlay"\ngraphroot = "{self.root / "storage"}"\nrunroot = "{self.root / "run"}"\n',
        )

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "CONTAINERS_CONF": str(self.root / "containers.conf"),
            "CONTAINERS_STORAGE_CONF": str(self.root / "storage.conf"),
        }

    def __call__(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["podman", *args], env=self.env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        if check and done.returncode != 0:
            command = " ".join(args[:3])
            raise ComponentFailed(f"podman {command} ... exited with {done.returncode}:\n{done.stderr[-3000:]}")
        return done

    def image_exists(self, ref: str) -> bool:
        return self("image", "exists", ref, check=False).returncode == 0

    def owned_containers(self, owner: int | None = None) -> list[str]:
        """Names of the containers this harness started (of one session's ``owner`` pid, or of any)."""
        label = OWNER_LABEL if owner is None else f"{OWNER_LABEL}={owner}"
        done = self("ps", "--all", "--filter", f"label={label}", "--format", "{{.Names}}")
        return done.stdout.split()

    def reap_abandoned(self) -> None:
        """Removes the containers of sessions whose process is gone (killed before their teardown ran)."""
        owner = f'{{{{index .Labels "{OWNER_LABEL}"}}}}'
        done = self("ps", "--all", "--filter", f"label={OWNER_LABEL}", "--format", "{{.Names}} " + owner)
        for line in done.stdout.splitlines():
            name, owner = line.split()
            if not Path(f"/proc/{owner}").exists():
                self("rm", "--force", "--time", "0", name, check=False)

    def _chart_like(self, memory: str, env: dict[str, str], volumes: Sequence[str]) -> list[str]:
        """Run as the chart runs the image (uid 10001, read-only root, /tmp on tmpfs, no capabilities) on the host's
        network, with a memory limit and this session's owner label."""
        args = ["--label", f"{OWNER_LABEL}={os.getpid()}", "--network", "host", "--memory", memory,
                "--user", "10001:10001", "--read-only", "--tmpfs", "/tmp:rw,size=64m", "--cap-drop", "ALL",
                "--security-opt", "no-new-privileges", "--pull", "never"]  # fmt: skip
        for key, value in env.items():
            args += ["--env", f"{key}={value}"]
        for volume in volumes:
            args += ["--volume", volume]
        return args

    def run_once(
        self, image: str, command: Sequence[str], *, env: dict[str, str], memory: str = "512m",
        volumes: Sequence[str] = (), timeout: float = 300,
    ) -> subprocess.CompletedProcess[str]:  # fmt: skip
        """A command in a container removed when it exits (its output and exit status, not checked)."""
        name = f"pc-once-{os.getpid()}-{time.monotonic_ns()}"
        try:
            return self("run", "--name", name, *self._chart_like(memory, env, volumes), image, *command,
                        timeout=timeout, check=False)  # fmt: skip
        finally:
            self("rm", "--force", "--time", "0", name, check=False, timeout=60)

    @contextmanager
    def running(
        self, name: str, image: str, command: Sequence[str], *, env: dict[str, str], memory: str = "512m",
        volumes: Sequence[str] = (),
    ) -> Iterator[str]:  # fmt: skip
        """A detached container run like ``run_once``; force-removed on exit, whatever happened inside."""
        try:
            self("run", "--detach", "--name", name, *self._chart_like(memory, env, volumes), image, *command)
            yield name
        finally:
            self("rm", "--force", "--time", "5", name, check=False, timeout=60)

    def logs(self, name: str) -> str:
        done = self("logs", name, check=False)
        return (done.stdout + done.stderr)[-4000:]
