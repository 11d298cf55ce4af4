"""`manage.py dev`: the embedded default, from a fresh machine to a working portal in one command."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Start local clusters, seed demo data, run the operator and serve the portal (dev only)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--members", type=int, default=2)
        parser.add_argument("--nodes", type=int, default=20)
        parser.add_argument("--no-clusters", action="store_true", help="Portal only, no local control plane")
        parser.add_argument("--keep-clusters", action="store_true", help="Leave the clusters running on exit")
        parser.add_argument("--no-serve", action="store_true", help="Set everything up, then exit")

    def say(self, message: str) -> None:
        self.stdout.write(self.style.HTTP_INFO("[dev] ") + message)
        self.stdout.flush()

    def handle(self, *args: Any, **opts: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("manage.py dev is the embedded default and needs DEBUG=true.")
        from console import demo, devstack

        call_command("migrate", verbosity=0, interactive=False)
        self.say("database migrated")
        logins = demo.ensure_users()
        cp, operator = None, None
        if not opts["no_clusters"]:
            self.say("starting local clusters (host + members; the first run builds binaries)...")
            cp = devstack.start_clusters(opts["members"], opts["nodes"])
            clusters = devstack.register(cp)
            members = devstack.members_of(clusters)
            from clusters import runtime
            from clusters.health import probe_cluster

            for cluster in clusters:
                probe_cluster(cluster)
            for cluster in members:
                devstack.install_platform(cluster)
                nodes = [n for n in devstack.provision.dynamic_client(devstack.api_for(cluster)).resources.get(
                    api_version="v1", kind="Node").get().to_dict()["items"]]
                demo.ensure_cluster_attributes(cluster, nodes)
            self.say(f"clusters ready: {', '.join(f'{c.name} ({c.role}, {c.zone})' for c in clusters)}")
            demo_user = next(u for u in _users() if u.username == "demo")
            admin_user = next(u for u in _users() if u.username == "admin")
            projects = demo.ensure_projects(members, demo_user, admin_user)
            for project in projects:
                for cluster in members:
                    devstack.provision_project(project, cluster)
            for problem in devstack.apply_demo_workloads(projects[0], members):
                self.say(f"warning: {problem}")
            operator = devstack.start_operator(cp, members, Path(settings.VAR_DIR) / "logs")
            self.say("operator running (log: var/logs/operator.log)" if operator else "operator not available")
            for cache in runtime.member_caches().values():
                cache.wait_synced(30)  # so the first page already shows live data
        url = f"http://{opts['host']}:{opts['port']}/"
        self.say(self.style.SUCCESS(f"PinConsole is ready at {url}"))
        for login in logins:
            self.say(f"  sign in as {login.username} / {login.password}   ({login.role})")
        if cp is not None:
            self.say(f"  kubeconfig: {cp.kubeconfig_path}   (stop clusters: python -m clusters.localcp down)")
        # uvicorn re-raises SIGTERM after its graceful shutdown; turn it into the same path as Ctrl-C so the
        # operator and the clusters are stopped either way.
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            if not opts["no_serve"]:
                self._serve(opts["host"], opts["port"])
        except KeyboardInterrupt:
            self.say("interrupted")
        finally:
            from clusters import runtime as cluster_runtime

            cluster_runtime.shutdown()
            if operator is not None:
                devstack.stop_process(operator)
            if cp is not None and not opts["keep_clusters"] and not opts["no_serve"]:
                self.say("stopping local clusters")
                cp.down()

    def _serve(self, host: str, port: int) -> None:
        import uvicorn

        sys.stdout.flush()
        uvicorn.run("console.asgi:application", host=host, port=port, log_level="info", lifespan="off")


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _users() -> list[Any]:
    from django.contrib.auth import get_user_model

    return list(get_user_model().objects.filter(username__in=["demo", "admin"]))
