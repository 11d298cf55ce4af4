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
            clusters, members = devstack.prepare_clusters(cp)
            self.say(f"clusters ready: {', '.join(f'{c.name} ({c.role}, {c.zone})' for c in clusters)}")
            for problem in devstack.seed_demo(members):
                self.say(f"warning: {problem}")
            operator = devstack.start_operator(cp, members, Path(settings.VAR_DIR) / "logs")
            self.say("operator running (log: var/logs/operator.log)")
            devstack.wait_for_caches()
        url = f"http://{opts['host']}:{opts['port']}/"
        self.say(self.style.SUCCESS(f"PinConsole is ready at {url}"))
        for login in logins:
            self.say(f"  sign in as {login.username} / {login.password}   ({login.role})")
        if cp is not None:
            self.say(f"  kubeconfig: {cp.kubeconfig_path}   (stop clusters: python -m devtools.localcp down)")
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
