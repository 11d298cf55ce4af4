"""Locate (and if needed build) the control plane binaries.

The build is ``build_binaries.sh`` next to this file: idempotent and cached outside the repo under
``$PINCONSOLE_CACHE`` (default ``~/.cache/pinconsole``), keyed by version.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

BUILD_SCRIPT = Path(__file__).with_name("build_binaries.sh")
PODSHIM_SRC = Path(__file__).with_name("podshim")
_PODSHIM_BUILD = threading.Lock()
K8S_VERSION = os.environ.get("K8S_VERSION", "v1.34.10")
ETCD_VERSION = os.environ.get("ETCD_VERSION", "v3.6.5")
KWOK_VERSION = os.environ.get("KWOK_VERSION", "v0.8.0")
DEX_VERSION = os.environ.get("DEX_VERSION", "v0.0.0-20260303133905-11d2eeb52b42")

NAMES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok", "dex")
CONTROL_PLANE = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok")


class BinariesMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class Binaries:
    dir: Path

    def path(self, name: str) -> Path:
        return self.dir / name

    etcd = property(lambda self: self.dir / "etcd")
    kube_apiserver = property(lambda self: self.dir / "kube-apiserver")
    kube_controller_manager = property(lambda self: self.dir / "kube-controller-manager")
    kube_scheduler = property(lambda self: self.dir / "kube-scheduler")
    kubectl = property(lambda self: self.dir / "kubectl")
    kwok = property(lambda self: self.dir / "kwok")
    dex = property(lambda self: self.dir / "dex")

    def missing(self, names: tuple[str, ...] = NAMES) -> list[str]:
        return [n for n in names if not os.access(self.dir / n, os.X_OK)]


def cache_dir() -> Path:
    return Path(os.environ.get("PINCONSOLE_CACHE", Path.home() / ".cache" / "pinconsole"))


def default_bin_dir() -> Path:
    """Same naming as build_binaries.sh: ``bin/k8s-<v>-etcd-<v>-kwok-<v>-dex-<last 12 of pseudo-version>``."""
    override = os.environ.get("PINCONSOLE_BIN_DIR")
    if override:
        return Path(override)
    return cache_dir() / "bin" / (f"k8s-{K8S_VERSION}-etcd-{ETCD_VERSION}-kwok-{KWOK_VERSION}-dex-{DEX_VERSION[-12:]}")


def build(target: str = "all") -> Path:
    """Run build_binaries.sh (idempotent; prints the bin dir). Build output goes to stderr."""
    out = subprocess.run(["bash", str(BUILD_SCRIPT), target], check=True, stdout=subprocess.PIPE, text=True).stdout
    return Path(out.strip().splitlines()[-1])


def locate(names: tuple[str, ...] = NAMES, build_missing: bool = False) -> Binaries:
    """Return the binaries; build the missing ones first if ``build_missing``, else raise."""
    bins = Binaries(default_bin_dir())
    missing = bins.missing(names)
    if missing and build_missing:
        bins = Binaries(build("all"))
        missing = bins.missing(names)
    if missing:
        raise BinariesMissing(
            f"missing binaries in {bins.dir}: {', '.join(missing)} "
            f"(run `python -m devtools.localcp build` or {BUILD_SCRIPT})"
        )
    return bins


def helm(build_missing: bool = True) -> Path:
    """helm (the chart tests' ``helm lint``/``template``), built from its pinned Go module by build_binaries.sh into
    ``bin/helm-<version>/helm``: a directory of its own, so a new helm never rebuilds the control plane."""
    script = ["bash", str(BUILD_SCRIPT)]
    path = Path(subprocess.run([*script, "helmpath"], check=True, stdout=subprocess.PIPE, text=True).stdout.strip())
    if not os.access(path, os.X_OK) and build_missing:
        subprocess.run([*script, "helm"], check=True, stdout=subprocess.DEVNULL)
    if not os.access(path, os.X_OK):
        raise BinariesMissing(f"helm missing at {path} (run {BUILD_SCRIPT} helm)")
    return path


def victoria_logs(build_missing: bool = True) -> Path:
    """VictoriaLogs (the log archive), built from its pinned Go module by build_binaries.sh into
    ``bin/victorialogs-<version>/victoria-logs``, keyed by its own version as helm is."""
    script = ["bash", str(BUILD_SCRIPT)]
    out = subprocess.run([*script, "victorialogspath"], check=True, stdout=subprocess.PIPE, text=True).stdout
    path = Path(out.strip())
    if not os.access(path, os.X_OK) and build_missing:
        subprocess.run([*script, "victoria-logs"], check=True, stdout=subprocess.DEVNULL)
    if not os.access(path, os.X_OK):
        raise BinariesMissing(f"victoria-logs missing at {path} (run {BUILD_SCRIPT} victoria-logs)")
    return path


def mailpit(build_missing: bool = True) -> Path:
    """Mailpit (the SMTP server the notifications' mails go to in dev and tests), built from its pinned Go module by
    build_binaries.sh into ``bin/mailpit-<version>/mailpit``, keyed by its own version."""
    script = ["bash", str(BUILD_SCRIPT)]
    out = subprocess.run([*script, "mailpitpath"], check=True, stdout=subprocess.PIPE, text=True).stdout
    path = Path(out.strip())
    if not os.access(path, os.X_OK) and build_missing:
        subprocess.run([*script, "mailpit"], check=True, stdout=subprocess.DEVNULL)
    if not os.access(path, os.X_OK):
        raise BinariesMissing(f"mailpit missing at {path} (run {BUILD_SCRIPT} mailpit)")
    return path


def podshim() -> Path:
    """The static podshim binary, built from ``podshim/`` (Go, stdlib only) and cached by source hash."""
    digest = hashlib.sha256()
    for name in ("go.mod", "main.go"):
        digest.update((PODSHIM_SRC / name).read_bytes())
    out = cache_dir() / "bin" / f"podshim-{digest.hexdigest()[:12]}"
    # The members come up in parallel threads and each asks for podshim: on a fresh cache the first builds it and
    # the others wait for it (they used to build into the same per-process temp name, and the second rename failed).
    with _PODSHIM_BUILD:
        if os.access(out, os.X_OK):
            return out
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(f".tmp{os.getpid()}-{threading.get_ident()}")
        env = dict(os.environ, CGO_ENABLED="0", GOTOOLCHAIN="local", GOFLAGS="-mod=mod")
        cmd = ["go", "build", "-trimpath", "-ldflags", "-s -w", "-o", str(tmp), "."]
        subprocess.run(cmd, cwd=PODSHIM_SRC, env=env, check=True, stdout=subprocess.DEVNULL)
        tmp.replace(out)
        return out


def bwrap() -> str:
    """bubblewrap (Debian package ``bubblewrap``; the bootstrap installs it)."""
    found = shutil.which("bwrap")
    if not found:
        raise BinariesMissing("bwrap not found: install the Debian package `bubblewrap` (python manage.py bootstrap)")
    return found
