"""``python3 manage.py dev``: the embedded default, from a fresh machine to a working portal in one command.

manage.py runs the bootstrap (devtools/bootstrap.py), re-executes itself in .venv and then calls
``main`` here, which sets up Django itself. It is deliberately not a Django management command: the
portal's settings and INSTALLED_APPS know nothing about dev tooling, whether or not it is installed.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys
from pathlib import Path
from typing import Any

from devtools.progress import Progress, dev_steps


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="manage.py dev",
        description="Start local clusters, seed demo data, run the operator and serve the portal (dev only).",
    )
    ap.add_argument("--host", default="127.0.0.1", help="address to serve on (loopback unless --allow-remote)")
    ap.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host: the dev stack signs in demo users with printed passwords",
    )
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--members", type=int, default=2)
    ap.add_argument("--nodes", type=int, default=20, help="kwok nodes per member cluster")
    ap.add_argument("--no-clusters", action="store_true", help="portal only, no local control plane")
    ap.add_argument("--keep-clusters", action="store_true", help="leave the clusters running on exit")
    ap.add_argument("--no-serve", action="store_true", help="set everything up, then exit")
    return ap


def bind_refusal(host: str, allow_remote: bool) -> str | None:
    """Why ``host`` may not be served on, or None: dev is for this machine unless asked otherwise.

    The dev stack has demo logins printed on the console and password sign-in on; anyone who can reach
    the port can use them. Only loopback addresses (and ``localhost``) are accepted by default."""
    if allow_remote or host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host.strip("[]")).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"manage.py dev serves on loopback only (127.0.0.1, ::1, localhost); --host {host} would expose the "
        "demo logins and password sign-in to the network. Pass --allow-remote to serve there anyway."
    )


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    refusal = bind_refusal(args.host, args.allow_remote)
    if refusal:
        print(refusal, file=sys.stderr)
        return 2
    # The embedded default: debug on, local password sign-in with the demo users.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("PINCONSOLE_DEV_LOGIN", "true")
    import django

    django.setup()
    from django.conf import settings

    if not settings.DEBUG:
        print("manage.py dev is the embedded default and needs DEBUG=true.", file=sys.stderr)
        return 2
    progress = Progress.resume("dev", dev_steps(clusters=not args.no_clusters))
    DevRun(args, progress).run()
    return 0


class DevRun:
    def __init__(self, args: argparse.Namespace, progress: Progress) -> None:
        self.args, self.progress = args, progress
        self.cp: Any = None
        self.operator: Any = None
        self.reconcile: Any = None

    def run(self) -> None:
        from django.core.management.color import color_style

        from devtools import demo

        say, style = self.progress.say, color_style()
        # uvicorn re-raises SIGTERM after its graceful shutdown; turn it (and a SIGTERM during set-up) into
        # the same path as Ctrl-C so the operator and the clusters are stopped either way.
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            with self.progress.step("database") as step:
                from django.core.management import call_command

                call_command("migrate", verbosity=0, interactive=False)
                logins = demo.ensure_users()
                step.outcome = "migrated, demo users ready"
            if not self.args.no_clusters:
                self._stack()
            url = f"http://{self.args.host}:{self.args.port}/"
            with self.progress.step("portal") as step:
                step.outcome = "starting uvicorn" if not self.args.no_serve else "not served (--no-serve)"
            say(style.SUCCESS(f"PinConsole is ready at {url}"))
            if bind_refusal(self.args.host, allow_remote=False):
                say(style.WARNING(f"  --allow-remote: {self.args.host} is reachable from the network"))
            for login in logins:
                say(f"  sign in as {login.username} / {login.password}   ({login.role})")
            if self.cp is not None:
                say(f"  kubeconfig: {self.cp.kubeconfig_path}   (stop clusters: {_down_command(self.cp.state_dir)})")
            if not self.args.no_serve:
                _serve(self.args.host, self.args.port)
        except KeyboardInterrupt:
            say("interrupted")
        finally:
            self._stop()

    def _stack(self) -> None:
        from django.conf import settings

        from devtools import demo, devstack

        args, step = self.args, self.progress.step
        with step("clusters up") as s:
            self.cp = devstack.control_plane(args.members, args.nodes)
            self.cp.up()
            how = "reused" if "reused" in self.cp.timings else "started"
            s.outcome = f"{how} host + {args.members} members x {args.nodes} nodes"
        with step("register clusters") as s:
            clusters = devstack.register(self.cp)
            s.outcome = ", ".join(f"{c.name} ({c.role}, {c.zone})" for c in clusters)
        with step("CRDs and PriorityClasses") as s:
            for cluster in clusters:
                devstack.install_platform(cluster)
            synced = devstack.sync_member_clusters()  # before the operator places anything
            s.outcome = (
                f"installed on {', '.join(c.name for c in clusters)} (+ ClusterRoles; host: ProjectQuota, "
                f"MemberCluster CRDs); MemberCluster objects: {'; '.join(f'{h}: {o}' for h, o in synced.items())}"
            )
        with step("demo data") as s:
            problems = demo.seed(clusters)
            self.reconcile = devstack.ReconcileLoop().start()
            s.outcome = (
                f"{len(demo.PROJECTS)} projects provisioned on every cluster, workloads; "
                f"reconcile every {self.reconcile.interval:.0f}s"
            )
        for problem in problems:
            self.progress.say(f"warning: {problem}")
        with step("operator") as s:
            log_dir = settings.VAR_DIR / "logs"
            self.operator = devstack.OperatorSupervisor(self.cp, clusters, log_dir)
            s.outcome = f"running, federation on {devstack.host_of(clusters).name} (log: {log_dir / 'operator.log'})"
        with step("watch caches") as s:
            devstack.wait_for_caches()
            kind, namespace, name = demo.first_workload()
            placed = devstack.wait_for_shards(kind, namespace, name)
            s.outcome = (
                f"synced; demo {kind} {name} placed on {', '.join(placed)}"
                if placed
                else "synced; the demo workloads are not placed yet (see the operator log)"
            )

    def _stop(self) -> None:
        from clusters import runtime as cluster_runtime

        if self.reconcile is not None:
            self.reconcile.stop()
        cluster_runtime.shutdown()
        if self.operator is not None:
            self.operator.stop()
        if self.cp is not None and not self.args.keep_clusters and not self.args.no_serve:
            self.progress.say("stopping local clusters")
            self.cp.down()


def _down_command(state_dir: Path) -> str:
    from devtools.devstack import DEFAULT_DEV_STATE

    extra = "" if state_dir == DEFAULT_DEV_STATE else f" --state-dir {state_dir}"
    return f"python -m devtools.localcp down{extra}"


WS_MAX_BYTES = 1 << 20  # a websocket message the portal reads, at most (uvicorn's default is 16 MiB): as the chart


def _serve(host: str, port: int) -> None:
    import uvicorn

    sys.stdout.flush()
    uvicorn.run(
        "console.asgi:application",
        host=host,
        port=port,
        log_level="info",
        lifespan="off",
        ws_per_message_deflate=False,
        ws_max_size=WS_MAX_BYTES,
    )


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
