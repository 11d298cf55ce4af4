"""kwok's jail: a bubblewrap view in which every program a client can name is ``podshim``.

kwok resolves the client's command (``sh``, ``/bin/sh``, ``/usr/bin/cat``, ...) in its own view and starts
it as the pod user (``runAsUser`` of the pod's Exec rule). In this view ``/usr/bin`` and ``/usr/sbin`` hold
one symlink to ``podshim`` per program name of the host, and there is no other executable a client could
reach: kwok's own files sit in ``/cp`` (root only), there is no ``/proc``, no host library, no shell. The
jail shares the host's network (kwok serves the apiserver on loopback); the programs never do, since
podshim only forwards to the broker, which runs them in the pod's sandbox.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

JAIL_ROOT = "/cp"  # kwok's files inside the jail (mode 0700)
SHIM_PATH = "/usr/libexec/podshim"
BROKER_DIR = "/run/podsb"
PODLOGS = f"{JAIL_ROOT}/podlogs"
_HOST_BIN_DIRS = ("/usr/bin", "/usr/sbin")


def prepare(jail_dir: Path) -> Path:
    """Write the jail's passwd/group and the shim directory (one symlink per host program name)."""
    etc = jail_dir / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    # kwok looks the pod user up (os/user reads these files).
    (etc / "passwd").write_text("root:x:0:0:root:/cp:/nonexistent\nnobody:x:65534:65534:pod user:/:/nonexistent\n")
    (etc / "group").write_text("root:x:0:\nnogroup:x:65534:\n")
    bin_dir = jail_dir / "bin"
    tmp = jail_dir / "bin.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    names = {n for d in _HOST_BIN_DIRS if os.path.isdir(d) for n in os.listdir(d)}
    for name in sorted(names):
        (tmp / name).symlink_to(SHIM_PATH)
    shutil.rmtree(bin_dir, ignore_errors=True)
    tmp.rename(bin_dir)
    os.chmod(jail_dir, 0o700)
    return bin_dir


def kwok_argv(
    bwrap: str,
    jail_dir: Path,
    podshim: Path,
    files: dict[str, Path],
    podlogs_dir: Path,
    broker_dir: Path,
    kwok_args: list[str],
) -> list[str]:
    """bubblewrap + kwok: ``files`` maps names under ``/cp`` (``kwok``, ``kwok.yaml``, ...) to host paths."""
    argv = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    # Root in the jail keeps only what kwok's exec needs: switching to the pod user and signalling it.
    argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_KILL"]
    argv += ["--clearenv", "--setenv", "PATH", "/usr/bin:/usr/sbin", "--setenv", "HOME", JAIL_ROOT]
    argv += ["--dev", "/dev", "--perms", "0700", "--dir", JAIL_ROOT]
    for d in ("/usr", "/usr/libexec", "/run", "/etc"):  # bwrap would make missing parents 0700
        argv += ["--perms", "0755", "--dir", d]
    for name, src in files.items():
        argv += ["--ro-bind", str(src), f"{JAIL_ROOT}/{name}"]
    argv += ["--ro-bind", str(podlogs_dir), PODLOGS]
    argv += ["--ro-bind", str(jail_dir / "etc/passwd"), "/etc/passwd"]
    argv += ["--ro-bind", str(jail_dir / "etc/group"), "/etc/group"]
    argv += ["--ro-bind", str(podshim), SHIM_PATH]
    for d in _HOST_BIN_DIRS:
        argv += ["--ro-bind", str(jail_dir / "bin"), d]
    argv += ["--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin"]
    argv += ["--ro-bind", str(broker_dir), BROKER_DIR, "--chdir", "/"]
    return [*argv, "--", f"{JAIL_ROOT}/kwok", *kwok_args]
