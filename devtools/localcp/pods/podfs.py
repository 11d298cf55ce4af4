"""A pod's private filesystem on the host, and the bubblewrap command that runs a program inside it.

Layout: ``<pods_dir>/<namespace>/<pod>/{uid, fs/}``. ``fs`` is the pod's root (owned by the pod user):
``etc`` with the pod's own passwd/group/hostname, ``home``, ``tmp``, ``var/log/app.log`` and mount points
for the read-only ``/usr``. The host files a pod sees are the read-only ``/usr`` (software, minus
``/usr/local``) and ``/etc/alternatives`` (the symlinks Debian's commands go through); nothing else.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from pathlib import Path

POD_UID = 65534  # nobody
POD_GID = 65534  # nogroup
POD_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
APP_LOG = "var/log/app.log"
_HOST_RO = ("/etc/alternatives", "/etc/bash.bashrc", "/etc/profile", "/etc/inputrc", "/etc/terminfo")
_LINKS = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}
# ulimits of every sandboxed process (prlimit): a fork bomb or a runaway file stays small. RLIMIT_NPROC counts
# every task of uid 65534 on the machine (all pods, all control planes): well below pid_max (32768 here).
_LIMITS = ("--nproc=8192", "--fsize=268435456", "--nofile=4096", "--core=0")


def pod_dir(pods_dir: Path, namespace: str, name: str) -> Path:
    return pods_dir / namespace / name


def chown(path: Path) -> None:
    os.chown(path, POD_UID, POD_GID, follow_symlinks=False)


def ensure_pod_fs(pods_dir: Path, namespace: str, name: str, uid: str) -> tuple[Path, bool]:
    """The pod's root for pod ``uid`` and whether it is new (a pod recreated under the same name starts
    afresh; the same pod, after a restart of the supervisor, keeps its files)."""
    pdir = pod_dir(pods_dir, namespace, name)
    marker = pdir / "uid"
    with contextlib.suppress(OSError):
        if marker.read_text() == uid:
            return pdir / "fs", False
    remove_pod_fs(pods_dir, namespace, name)
    fs = pdir / "fs"
    fs.mkdir(parents=True, mode=0o755)
    os.chmod(pdir, 0o700)
    for d in ("usr", "proc", "dev", "etc", "home", "tmp", "var", "var/log", "var/tmp"):
        (fs / d).mkdir(mode=0o755, exist_ok=True)
    for link, target in _LINKS.items():
        (fs / link).symlink_to(target)
    etc = fs / "etc"
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:pod user:/home:/bin/sh\n")
    (etc / "group").write_text("root:x:0:\nnogroup:x:65534:\n")
    (etc / "hostname").write_text(f"{name}\n")
    (etc / "hosts").write_text(f"127.0.0.1\tlocalhost {name}\n::1\tlocalhost\n")
    (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files\n")
    (fs / APP_LOG).touch(mode=0o644)
    for p in [fs, *(fs / d for d in ("etc", "home", "tmp", "var", "var/log", "var/tmp", APP_LOG))]:
        chown(p)
    marker.write_text(uid)
    return fs, True


def remove_pod_fs(pods_dir: Path, namespace: str, name: str) -> None:
    """Remove a pod's files (rmtree does not follow the symlinks a pod may have planted)."""
    pdir = pod_dir(pods_dir, namespace, name)
    for _ in range(3):  # a sandbox being set up as the pod went may still add a mount point or two
        shutil.rmtree(pdir, ignore_errors=True)
        if not pdir.exists():
            return
        time.sleep(0.5)


def open_dir_nofollow(root: Path, rel: str = "") -> int:
    """An O_PATH fd of ``root/rel`` that refuses any symlink on the way (the pod owns everything under fs)."""
    fd = os.open(root, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        for part in [p for p in rel.split("/") if p]:
            nxt = os.open(part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except OSError:
        os.close(fd)
        raise
    return fd


def append_app_log(fs: Path, text: str, max_bytes: int) -> None:
    """Append to the pod's ``/var/log/app.log`` as its own program would (rotating to app.log.1)."""
    dirname, _, base = APP_LOG.rpartition("/")
    dfd = open_dir_nofollow(fs, dirname)
    try:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(base, flags, 0o644, dir_fd=dfd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return
            if st.st_uid != POD_UID:
                os.fchown(fd, POD_UID, POD_GID)
            if st.st_size > max_bytes:
                os.replace(base, base + ".1", src_dir_fd=dfd, dst_dir_fd=dfd)
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    finally:
        os.close(dfd)


def sandbox_argv(
    bwrap: str,
    root_fd: int,
    hostname: str,
    argv: list[str],
    *,
    tty: bool,
    container_env: tuple[tuple[str, str], ...] = (),
) -> list[str]:
    """bubblewrap command line: ``argv`` in the pod's root (fd ``root_fd``), no host file, no network.

    bwrap runs as root (it binds the pod's root by fd, whatever the state dir's permissions) with only the
    capabilities ``setpriv`` needs to become the pod user for good: uid/gid 65534, no group, no
    capability (bounding set emptied), no_new_privs. Every mount is nosuid and in the sandbox's own
    mount namespace; the pod user cannot undo any of it. ``container_env``: the container's own variables
    (``podconfigs``), set after the sandbox's, as a container's own win over its image's.
    """
    out = ["prlimit", *_LIMITS, "--", bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    out += ["--unshare-cgroup-try", "--die-with-parent", "--cap-drop", "ALL"]
    out += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    out += ["--bind-fd", str(root_fd), "/", "--ro-bind", "/usr", "/usr", "--tmpfs", "/usr/local"]
    out += ["--proc", "/proc", "--dev", "/dev"]
    for path in _HOST_RO:
        if os.path.exists(path):
            out += ["--ro-bind", path, path]
    out += ["--hostname", hostname, "--chdir", "/", "--clearenv"]
    env = {"PATH": POD_PATH, "HOME": "/home", "USER": "nobody", "HOSTNAME": hostname, "PS1": f"{hostname}$ "}
    env["TERM"] = "xterm-256color"
    for k, v in [*env.items(), *container_env]:
        out += ["--setenv", k, v]
    drop = ["setpriv", f"--reuid={POD_UID}", f"--regid={POD_GID}", "--clear-groups", "--inh-caps=-all"]
    drop += ["--bounding-set=-all", "--no-new-privs", "--"]
    # A tty session gets the pty as its controlling terminal (job control, Ctrl-C), as a container would.
    ctty = ["setsid", "--ctty", "--"] if tty else []
    return [*out, "--", *drop, *ctty, *argv]
