"""Make a fresh machine ready: system packages, .venv, front-end build; for ``test``, the control-plane binaries.

``dev`` leaves the binaries to the dev command, which serves the portal first and builds only the ones its
clusters need behind it (devtools/devbuilds.py).

Standard library only: manage.py runs it with the system Python before any dependency exists (the
``devtools`` package's ``__init__`` imports nothing). Each step is skipped when its inputs have not
changed since the last successful run (hash markers in .venv/), so later runs take seconds. Commands
write to log files under ``$PINCONSOLE_CACHE/logs`` (default ``~/.cache/pinconsole/logs``); the
terminal shows one progress line per step and a log's tail only when its step fails.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from devtools.progress import BINARIES, Progress, StepFailed, dev_steps, fmt_seconds, short_path

BUILD_SCRIPT = Path(__file__).resolve().parent / "localcp" / "build_binaries.sh"


class BootstrapFailed(SystemExit):
    """A step failed; its progress line and log tail are already on the terminal."""


def cache_dir() -> Path:
    return Path(os.environ.get("PINCONSOLE_CACHE", Path.home() / ".cache" / "pinconsole"))


def log_dir() -> Path:
    path = cache_dir() / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


def run_logged(cmd: list[str], log: Path, **kwargs: object) -> None:
    """Run with stdout and stderr appended to ``log``; raise StepFailed (not the output) on failure."""
    with log.open("a") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise StepFailed(f"{Path(cmd[0]).name} exited with {done.returncode}")


def fresh_log(name: str) -> Path:
    log = log_dir() / f"{name}.log"
    log.write_text("")
    return log


def _digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            h.update(str(file).encode())
            h.update(file.read_bytes())
    return h.hexdigest()


def _fresh(marker: Path, digest: str) -> bool:
    return marker.exists() and marker.read_text() == digest


def find_postgres_bin() -> Path | None:
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (candidate / "postgres").exists() and (candidate / "initdb").exists():
            return candidate
    found = shutil.which("postgres")
    return Path(found).parent if found else None


def missing_system_packages(purpose: str) -> list[str]:
    missing = []
    if purpose == "test":
        if find_postgres_bin() is None:
            missing.append("postgresql")
        if shutil.which("redis-server") is None:
            missing.append("redis-server")
        if not Path("/usr/bin/chromium").exists():
            missing.append("chromium")
        # The image built and run as containers (tests/harness/image.py): no registry, bases made with mmdebstrap.
        missing += [tool for tool in ("podman", "buildah", "runc", "mmdebstrap") if shutil.which(tool) is None]
        # What podman recommends and --no-install-recommends leaves out (its networks, rootless helpers): the suite
        # runs with host networking as root, but was only proven on a machine that had them.
        helpers = {"containernetworking-plugins": "/usr/lib/cni/bridge", "uidmap": "/usr/bin/newuidmap",
                   "fuse-overlayfs": "/usr/bin/fuse-overlayfs", "slirp4netns": "/usr/bin/slirp4netns",
                   "iptables": "/usr/sbin/iptables"}  # fmt: skip
        missing += [package for package, path in helpers.items() if not Path(path).exists()]
        # The CLI's zsh and fish completion scripts are parsed by those shells (tests/sdk/test_cli_kubectl_habits.py).
        missing += [shell for shell in ("zsh", "fish") if shutil.which(shell) is None]
        # The real node the chart runs on (tests/harness/realnode.py): containerd, its CNI plugins (above) and runc.
        if shutil.which("containerd") is None:
            missing.append("containerd")
    if shutil.which("npm") is None:
        missing.append("npm")
    if shutil.which("bwrap") is None:
        missing.append("bubblewrap")  # the dev pods' sandbox (devtools/localcp/pods)
    if shutil.which("prometheus") is None:
        missing.append("prometheus")  # the local stack's usage metrics (devtools/localcp/prometheus.py)
    if shutil.which("go") is None:
        raise BootstrapFailed("go is required and not installable from here; install Go 1.26+.")
    return missing


def ensure_system_packages(purpose: str, progress: Progress) -> None:
    with progress.step("system packages") as step:
        missing = missing_system_packages(purpose)
        if not missing:
            step.outcome = "present"
            return
        if os.geteuid() != 0:
            raise BootstrapFailed(f"Missing system packages: {' '.join(missing)}. Install them (apt-get install ...).")
        step.log = fresh_log("apt")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run_logged(["apt-get", "update", "-q"], step.log, env=env)
        run_logged(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], step.log, env=env)
        step.outcome = f"installed {' '.join(missing)}"


def ensure_venv(root: Path, progress: Progress) -> str:
    venv = root / ".venv"
    python = venv / "bin" / "python"
    with progress.step("python packages (.venv)") as step:
        marker = venv / ".pinconsole-deps"
        lock = root / "deploy" / "requirements.lock"
        digest = _digest(root / "pyproject.toml", lock)
        if python.exists() and _fresh(marker, digest):
            step.outcome = "up to date"
            return str(python)
        step.log = fresh_log("pip")
        if not python.exists():
            run_logged([sys.executable, "-m", "venv", str(venv)], step.log)
        run_logged([str(python), "-m", "pip", "install", "--upgrade", "pip"], step.log)
        # The image's packages exactly as the image installs them (hash-checked), then the dev tools around them.
        run_logged([str(python), "-m", "pip", "install", "--require-hashes", "--no-deps", "-r", str(lock)], step.log)
        run_logged([str(python), "-m", "pip", "install", "-e", f"{root}[dev]"], step.log)
        marker.write_text(digest)
        step.outcome = "installed"
    return str(python)


def ensure_frontend(root: Path, progress: Progress) -> None:
    static = root / "static"
    venv = root / ".venv"
    lock_marker, build_marker = venv / ".pinconsole-npm", venv / ".pinconsole-dist"
    with progress.step("npm packages") as step:
        lock_digest = _digest(static / "package-lock.json")
        if _fresh(lock_marker, lock_digest) and (static / "node_modules").exists():
            step.outcome = "up to date"
        else:
            step.log = fresh_log("npm-ci")
            run_logged(["npm", "ci", "--no-audit", "--no-fund"], step.log, cwd=static)
            lock_marker.write_text(lock_digest)
            step.outcome = "installed"
    with progress.step("front-end build") as step:
        build_digest = _digest(static / "src", static / "package.json", static / "build.mjs")
        if _fresh(build_marker, build_digest) and (static / "dist" / "app.js").exists():
            step.outcome = "up to date"
        else:
            step.log = fresh_log("npm-build")
            run_logged(["npm", "run", "build"], step.log, cwd=static)
            build_marker.write_text(build_digest)
            step.outcome = "built"


def _script(*args: str) -> list[str]:
    out = subprocess.run(["bash", str(BUILD_SCRIPT), *args], check=True, stdout=subprocess.PIPE, text=True)
    return out.stdout.split()


def ensure_binaries(progress: Progress) -> str:
    """One step per missing binary (build_binaries.sh decides what is missing and in which order)."""
    bin_dir = _script("bindir")[-1]
    missing = _script("missing")
    if not missing:
        with progress.step(BINARIES) as step:
            step.outcome = f"cached in {short_path(Path(bin_dir))}"
        return bin_dir
    titles = [f"build {name}" for name in missing]
    progress.replace(BINARIES, titles)
    what = "binary" if len(missing) == 1 else "binaries"
    progress.say(
        f"building {len(missing)} control-plane {what} from pinned Go modules: once, then cached in "
        f"{short_path(Path(bin_dir).parent.parent)} (1 to 3 minutes each on 2 cores)"
    )
    for name, title in zip(missing, titles, strict=True):
        with progress.step(title, log=fresh_log(f"build-{name}")) as step:
            run_logged(["bash", str(BUILD_SCRIPT), name], step.log)  # type: ignore[arg-type]
            step.outcome = "built"
    return bin_dir


def plan(purpose: str, argv: list[str]) -> list[str]:
    """What the bootstrap runs, then what the command runs after it (shown as what remains)."""
    steps = ["system packages", "python packages (.venv)", "npm packages", "front-end build"]
    if purpose == "dev":
        return steps + dev_steps(clusters="--no-clusters" not in argv)
    return [*steps, BINARIES]


def ensure_environment(root: Path, purpose: str, argv: list[str] | None = None) -> str:
    """Run every step; returns the venv's python. For ``dev``, exports the progress state for the dev stack."""
    progress = Progress(purpose, plan(purpose, argv or []))
    if sys.version_info[:2] != (3, 11):
        progress.say(f"warning: Python {sys.version.split()[0]}; the project targets 3.11")
    try:
        ensure_system_packages(purpose, progress)
        python = ensure_venv(root, progress)
        ensure_frontend(root, progress)
        if purpose == "test":
            os.environ["PINCONSOLE_BIN_DIR"] = ensure_binaries(progress)
    except StepFailed as exc:
        raise BootstrapFailed(1) from exc
    except subprocess.CalledProcessError as exc:
        progress.say(f"failed: {exc}")
        raise BootstrapFailed(1) from exc
    if purpose == "dev":  # the dev stack continues the numbering and the clock
        os.environ.update(progress.export())
    else:
        progress.say(f"environment ready in {fmt_seconds(progress.elapsed())}; running the test suite")
    return python
