"""Make a fresh machine ready: system packages, .venv, front-end build, control-plane binaries.

Standard library only: it runs before any dependency exists. Each step is skipped when its inputs
have not changed since the last successful run (hash markers in .venv/), so later runs take seconds.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

APT_FOR_TESTS = {
    "postgresql": "postgres",  # package -> probe (binary found by _find_postgres)
    "redis-server": "redis-server",
    "chromium": "chromium",
}


def log(message: str) -> None:
    print(f"[bootstrap] {message}", flush=True)


def _run(cmd: list[str], **kwargs: object) -> None:
    log(" ".join(cmd))
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


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


def ensure_system_packages(purpose: str) -> None:
    missing = []
    if purpose == "test":
        if find_postgres_bin() is None:
            missing.append("postgresql")
        if shutil.which("redis-server") is None:
            missing.append("redis-server")
        if not Path("/usr/bin/chromium").exists():
            missing.append("chromium")
    for tool, package in (("npm", "npm"), ("go", None)):
        if shutil.which(tool) is None:
            if package is None:
                raise SystemExit(f"{tool} is required and not installable from here; install Go 1.26+.")
            missing.append(package)
    if not missing:
        return
    if os.geteuid() != 0:
        raise SystemExit(f"Missing system packages: {' '.join(missing)}. Install them (apt-get install ...).")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run(["apt-get", "update", "-q"], env=env)
    _run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], env=env)


def ensure_venv(root: Path) -> str:
    venv = root / ".venv"
    python = venv / "bin" / "python"
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(venv)])
    marker = venv / ".pinconsole-deps"
    digest = _digest(root / "pyproject.toml")
    if not _fresh(marker, digest):
        _run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
        _run([str(python), "-m", "pip", "install", "-q", "-e", f"{root}[dev]"])
        marker.write_text(digest)
    return str(python)


def ensure_frontend(root: Path) -> None:
    static = root / "static"
    venv = root / ".venv"
    lock_marker, build_marker = venv / ".pinconsole-npm", venv / ".pinconsole-dist"
    lock_digest = _digest(static / "package-lock.json")
    if not _fresh(lock_marker, lock_digest) or not (static / "node_modules").exists():
        _run(["npm", "ci", "--no-audit", "--no-fund"], cwd=static)
        lock_marker.write_text(lock_digest)
    build_digest = _digest(static / "src", static / "package.json", static / "build.mjs")
    if not _fresh(build_marker, build_digest) or not (static / "dist" / "app.js").exists():
        _run(["npm", "run", "build"], cwd=static)
        build_marker.write_text(build_digest)


def ensure_binaries(root: Path) -> str:
    out = subprocess.run(["bash", str(root / "devtools" / "localcp" / "build_binaries.sh"), "all"],
                         check=True, stdout=subprocess.PIPE, text=True)
    return out.stdout.strip().splitlines()[-1]


def ensure_environment(root: Path, purpose: str) -> str:
    if sys.version_info[:2] != (3, 11):
        log(f"warning: Python {sys.version.split()[0]}; the project targets 3.11")
    ensure_system_packages(purpose)
    python = ensure_venv(root)
    ensure_frontend(root)
    log("control-plane binaries (first build takes a while; cached in ~/.cache/pinconsole)")
    os.environ["PINCONSOLE_BIN_DIR"] = ensure_binaries(root)
    return python
