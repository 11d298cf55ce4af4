"""``python3 manage.py dev``: the embedded default, from a fresh machine to a working portal in one command.

manage.py runs the bootstrap (devtools/bootstrap.py), re-executes itself in .venv and then calls
``main`` here, which sets up Django itself. It is deliberately not a Django management command: the
portal's settings and INSTALLED_APPS know nothing about dev tooling, whether or not it is installed; the dev
command runs the portal with ``devtools.startup.settings``, the portal's settings plus its progress page.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from devtools.devbuilds import DevBuilds
from devtools.progress import LIVE, STOPPED, Progress, dev_steps, fmt_seconds


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


SETTINGS = "devtools.startup.settings"  # the portal's own settings plus the progress page (devtools/startup)
PROGRESS_PATH = "/dev/progress/"


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    refusal = bind_refusal(args.host, args.allow_remote)
    if refusal:
        print(refusal, file=sys.stderr)
        return 2
    # The embedded default: debug on, local password sign-in with the demo users.
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("PINCONSOLE_DEV_LOGIN", "true")
    if not args.no_clusters and "LOG_ARCHIVE_URL" not in os.environ:  # the dev stack's own VictoriaLogs
        from devtools.localcp.procs import free_port

        os.environ["LOG_ARCHIVE_URL"] = f"http://127.0.0.1:{free_port(DEV_ARCHIVE_PORT)}"
        os.environ["PINCONSOLE_DEV_ARCHIVE"] = "1"
    if not args.no_clusters and "PROMETHEUS_URL" not in os.environ:  # the dev stack's own Prometheus
        from devtools.localcp.procs import free_port

        os.environ["PROMETHEUS_URL"] = f"http://127.0.0.1:{free_port(DEV_METRICS_PORT)}"
        os.environ["PINCONSOLE_DEV_METRICS"] = "1"
    if not args.no_clusters and "EMAIL_HOST" not in os.environ:  # the dev stack's own Mailpit
        from devtools.localcp.procs import free_port

        smtp, web = free_port(DEV_MAIL_SMTP_PORT), free_port(DEV_MAIL_WEB_PORT)
        os.environ |= {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(smtp), "MAILPIT_URL": f"http://127.0.0.1:{web}"}
        os.environ["PINCONSOLE_DEV_MAIL"] = "1"
    import django

    django.setup()
    from django.conf import settings

    if not settings.DEBUG:
        print("manage.py dev is the embedded default and needs DEBUG=true.", file=sys.stderr)
        return 2
    progress = Progress.resume(
        "dev",
        dev_steps(clusters=not args.no_clusters),
        status_file=settings.DEV_PROGRESS_FILE,
        retry="python3 manage.py dev",
    )
    DevRun(args, progress).run()
    return 0


class DevRun:
    """The database and the portal first (sign-in works at once), then, on a thread behind the serving portal,
    the binaries the clusters lack, the clusters, their registration, the demo data and the operator: the
    progress page (``PROGRESS_PATH``) shows each step as the terminal does."""

    def __init__(self, args: argparse.Namespace, progress: Progress) -> None:
        self.args, self.progress = args, progress
        self.builds = DevBuilds(progress)
        self.cp: Any = None
        self.archive: Any = None
        self.metrics: Any = None
        self.mail: Any = None
        self.operator: Any = None
        self.recorder: Any = None
        self.beat: Any = None
        self._stopping = threading.Event()
        self._behind: threading.Thread | None = None

    def run(self) -> None:
        from django.core.management.color import color_style

        from devtools import demo

        say, style, args = self.progress.say, color_style(), self.args
        url = f"http://{args.host}:{args.port}/"
        # uvicorn re-raises SIGTERM after its graceful shutdown; turn it (and a SIGTERM during set-up) into
        # the same path as Ctrl-C so the builds, the operator and the clusters are stopped either way.
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            with self.progress.step("database") as step:
                from django.core.management import call_command

                call_command("migrate", verbosity=0, interactive=False)
                logins = demo.ensure_users()
                step.outcome = "migrated, demo users ready"
            if args.no_serve and not args.no_clusters:
                self._stack()
            with self.progress.step("portal") as step:
                if args.no_serve:
                    step.outcome = "not served (--no-serve)"
                elif args.no_clusters:
                    step.outcome = f"serving {url}"
                else:
                    step.outcome = f"serving {url}; the clusters come up behind it ({url.rstrip('/')}{PROGRESS_PATH})"
            say(style.SUCCESS(f"PinConsole is ready at {url}"))
            if bind_refusal(args.host, allow_remote=False):
                say(style.WARNING(f"  --allow-remote: {args.host} is reachable from the network"))
            for login in logins:
                say(f"  sign in as {login.username} / {login.password}   ({login.role})")
            if args.no_serve or args.no_clusters:
                self._live()
            else:
                say(f"  the platform is starting: {url.rstrip('/')}{PROGRESS_PATH} shows each step")
                self._behind = threading.Thread(target=self._stack_behind, name="dev-stack", daemon=True)
                self._behind.start()
            if not args.no_serve:
                _serve(args.host, args.port)
        except KeyboardInterrupt:
            say("interrupted")
        finally:
            self._stop()

    def _live(self) -> None:
        self.progress.finish(LIVE)
        if self.cp is not None:
            self.progress.say(
                f"  kubeconfig: {self.cp.kubeconfig_path}   (stop clusters: {_down_command(self.cp.state_dir)})"
            )

    def _stack_behind(self) -> None:
        """The stack on its thread: a failed step stays on the page and the terminal; the portal keeps serving."""
        try:
            self._stack()
        except KeyboardInterrupt:
            return
        except Exception as exc:  # noqa: BLE001 - any step's failure: its step recorded it; the portal serves on
            if not self._stopping.is_set():
                self.progress.say(
                    f"{type(exc).__name__}: the portal keeps serving; the page {PROGRESS_PATH} shows the failed "
                    f"step, its log and how to retry (Ctrl-C, then {self.progress.retry})"
                )
            return
        self.progress.say(f"everything is live in {fmt_seconds(self.progress.elapsed())}")
        self._live()

    def _check_stopping(self) -> None:
        if self._stopping.is_set():
            raise KeyboardInterrupt

    def _stack(self) -> None:
        from django.conf import settings

        from devtools import demo, devstack, devusage
        from devtools.devbeat import DevBeat

        args, step = self.args, self.progress.step
        os.environ["PINCONSOLE_BIN_DIR"] = str(self.builds.run())
        self._check_stopping()
        with step("clusters up") as s:
            if os.environ.get("PINCONSOLE_DEV_ARCHIVE"):
                self.archive = devstack.start_log_archive(settings.LOG_ARCHIVE_URL)
            if os.environ.get("PINCONSOLE_DEV_MAIL"):
                self.mail = devstack.start_mail(int(os.environ["EMAIL_PORT"]), os.environ["MAILPIT_URL"])
            self.cp = devstack.control_plane(args.members, args.nodes, log_archive_url=settings.LOG_ARCHIVE_URL)
            self.cp.up(on_ready=lambda c: self.progress.cluster_ready(c.name, c.role, c.zone, c.server))
            if os.environ.get("PINCONSOLE_DEV_METRICS"):
                self.metrics = devusage.start_metrics(settings.PROMETHEUS_URL, self.cp)
            how = "reused" if "reused" in self.cp.timings else "started"
            s.outcome = f"{how} host + {args.members} members x {args.nodes} nodes"
        self._check_stopping()
        with step("register clusters") as s:
            clusters = devstack.register(self.cp)
            s.outcome = ", ".join(f"{c.name} ({c.role}, {c.zone})" for c in clusters)
        self._check_stopping()
        with step("CRDs and PriorityClasses") as s:
            for cluster in clusters:
                devstack.install_platform(cluster)
            synced = devstack.sync_member_clusters()  # before the operator places anything
            s.outcome = (
                f"installed on {', '.join(c.name for c in clusters)} (+ ClusterRoles; host: ProjectQuota, "
                f"MemberCluster CRDs); MemberCluster objects: {'; '.join(f'{h}: {o}' for h, o in synced.items())}"
            )
        self._check_stopping()
        with step("demo data") as s:
            problems = demo.seed(clusters)
            self.beat = DevBeat().start()
            s.outcome = f"{len(demo.PROJECTS)} projects provisioned on every cluster, workloads; {self.beat.describe()}"
        for problem in problems:
            self.progress.say(f"warning: {problem}")
        self._check_stopping()
        with step("operator") as s:
            log_dir = settings.VAR_DIR / "logs"
            self.operator = devstack.OperatorSupervisor(self.cp, clusters, log_dir)
            s.outcome = f"running, federation on {devstack.host_of(clusters).name} (log: {log_dir / 'operator.log'})"
        with step("history recorder") as s:
            from devtools.recorder_process import RecorderSupervisor

            self.recorder = RecorderSupervisor(log_dir)
            s.outcome = f"running, leader-elected on the host (log: {log_dir / 'recorder.log'})"
        self._check_stopping()
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

        self._stopping.set()
        self.builds.stop()
        if self._behind is not None:
            self._behind.join(STACK_STOP_SECONDS)
        if self.beat is not None:
            self.beat.stop()
        cluster_runtime.shutdown()
        if self.recorder is not None:
            self.recorder.stop()
        if self.operator is not None:
            self.operator.stop()
        if self.cp is not None and not self.args.keep_clusters and not self.args.no_serve:
            self.progress.say("stopping local clusters")
            self.cp.down()
        if self.archive is not None:
            self.archive.stop()
        if self.metrics is not None:
            self.metrics.stop()
        if self.mail is not None:
            self.mail.stop()
        self.progress.finish(STOPPED)


DEV_ARCHIVE_PORT = 9428  # VictoriaLogs' own default, when free
DEV_METRICS_PORT = 9090  # Prometheus' own default, when free
DEV_MAIL_SMTP_PORT, DEV_MAIL_WEB_PORT = 1025, 8025  # Mailpit's own defaults, when free
STACK_STOP_SECONDS = 120  # a step under way when the command stops (clusters starting) ends within this


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
