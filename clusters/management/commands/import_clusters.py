"""Register clusters from the contexts of a kubeconfig (idempotent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from django.core.management.base import BaseCommand, CommandError

from base.errors import ServiceError
from clusters import services
from clusters.models import FederationRole


class Command(BaseCommand):
    help = "Import (or refresh) clusters from kubeconfig contexts. Contexts named 'host*' become the host."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--kubeconfig", required=True)
        parser.add_argument("--context", action="append", default=[], help="Only these contexts (repeatable)")
        parser.add_argument("--region", default="local-1")
        parser.add_argument("--zone", action="append", default=[], help="context=zone (repeatable)")
        parser.add_argument("--host-context", default="host")

    def handle(self, *args: Any, **opts: Any) -> None:
        path = Path(opts["kubeconfig"]).expanduser().resolve()
        try:
            config = yaml.safe_load(path.read_text())
        except (OSError, yaml.YAMLError) as exc:
            raise CommandError(f"Cannot read kubeconfig {path}: {exc}") from exc
        bad = [item for item in opts["zone"] if "=" not in item]
        if bad:
            raise CommandError(f"--zone takes context=zone, not {', '.join(bad)}")
        zones = dict(item.split("=", 1) for item in opts["zone"])
        servers = {c["name"]: c["cluster"]["server"] for c in config.get("clusters", [])}
        wanted = set(opts["context"])
        for ctx in config.get("contexts", []):
            name = ctx["name"]
            if wanted and name not in wanted:
                continue
            role = FederationRole.HOST if name == opts["host_context"] else FederationRole.MEMBER
            try:
                cluster, created = services.register_cluster(
                    name=name,
                    region=opts["region"],
                    zone=zones.get(name, opts["region"] + "a"),
                    role=role,
                    api_server=servers.get(ctx["context"]["cluster"], ""),
                    kubeconfig_path=str(path),
                    kube_context=name,
                )
            except ServiceError as exc:
                raise CommandError(f"Cannot register context {name}: {exc}") from exc
            self.stdout.write(f"{'registered' if created else 'refreshed '} {cluster.name} ({role}, {cluster.zone})")
