"""CLI: ``python -m devtools.localcp up|down|status|build|kubeconfig``.

Options: ``[--state-dir DIR] [--members N] [--nodes N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import binaries
from .controlplane import LocalControlPlane
from .layout import read_layout
from .procs import ComponentError

DEFAULT_STATE_DIR = Path("~/.cache/pinconsole/state/dev").expanduser()


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m devtools.localcp", description=__doc__)
    ap.add_argument("command", choices=["up", "down", "status", "build", "kubeconfig"])
    ap.add_argument("--state-dir", type=Path, default=DEFAULT_STATE_DIR)
    ap.add_argument("--members", type=int, default=2)
    ap.add_argument("--nodes", type=int, default=20, help="kwok nodes per member cluster")
    ap.add_argument("--region", default="local-1")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds allowed for `up`")
    ap.add_argument("--json", action="store_true", help="machine-readable output (status, up)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    cp = LocalControlPlane(args.state_dir, members=args.members, nodes_per_member=args.nodes, region=args.region)

    if args.command == "build":
        print(binaries.build("all"))
        return 0

    if args.command == "kubeconfig":
        if read_layout(cp.state_dir) is None:
            print(f"no control plane in {cp.state_dir} (run `up`)", file=sys.stderr)
            return 1
        print(cp.kubeconfig_path)
        return 0

    if args.command == "up":
        try:
            clusters = cp.up(timeout=args.timeout)
        except ComponentError as exc:
            print(f"FAILED: {exc}", file=sys.stderr)
            return 1
        if args.json:
            print(
                json.dumps(
                    {
                        "kubeconfig": str(cp.kubeconfig_path),
                        "clusters": [c.to_dict() for c in clusters],
                        "timings": cp.timings,
                    },
                    indent=2,
                )
            )
            return 0
        reused = "reused" in cp.timings
        for c in clusters:
            extra = f" nodes={c.nodes}" if c.role == "member" else ""
            print(f"{c.name:10} {c.role:6} zone={c.zone} {c.server}{extra}")
        took = cp.timings.get("reused" if reused else "total", 0.0)
        how = "reused running clusters" if reused else "started"
        print(f"kubeconfig: {cp.kubeconfig_path}  ({how} in {took:.1f}s)")
        print(f"export KUBECONFIG={cp.kubeconfig_path}")
        return 0

    if args.command == "status":
        st = cp.status()
        if args.json:
            print(json.dumps(st, indent=2))
        elif not st["clusters"]:
            print(f"no control plane in {cp.state_dir}")
        else:
            for name, c in st["clusters"].items():
                print(f"{name:10} {c['role']:6} {c['server']}")
                for comp, s in c["components"].items():
                    state = "ok" if s["healthy"] else ("UNHEALTHY" if s["alive"] else "DOWN")
                    rss = f"{s['rss_kib'] / 1024:.0f} MiB" if s["rss_kib"] else "-"
                    print(f"    {comp:24} {state:9} pid={s['pid'] or '-':<8} rss={rss}")
        return 0 if st["healthy"] else 1

    if args.command == "down":
        leftover = cp.down()
        if leftover:
            print("processes still running:\n  " + "\n  ".join(leftover), file=sys.stderr)
            return 1
        print(f"stopped; no process of {cp.state_dir} remains")
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
