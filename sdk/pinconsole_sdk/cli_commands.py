"""``pincompute`` commands on one workload or a project's history: ``describe``, ``scale``, the operations
(``pause``, ``resume``, ``stop``, ``start``, ``restart``), ``restart-container``, ``timeline``; and ``version``."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from pinconsole_sdk.cli_diagnosis import fetch_diagnosis, write_diagnosis
from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import Output, describe, dump, show_workloads, table
from pinconsole_sdk.cli_targets import UsageError, one, optional_one
from pinconsole_sdk.client import Client, __version__
from pinconsole_sdk.models import Workload


def need_project(args: argparse.Namespace) -> str:
    if not args.project:
        raise UsageError("a project is needed: -n PROJECT")
    return str(args.project)


def cmd_describe(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    kind, name = one(args.resource, "describe")
    w = client.get(project, kind, name)
    if args.output.structured:
        dump(w.to_dict(), args.output, out)
        return OK
    entries = client.timeline(project, w.kind, w.name, limit=10).entries
    write_diagnosis(fetch_diagnosis(client, project, w.kind, w.name), client.url, out)  # why, first
    describe(w, entries, out)
    return OK


def cmd_scale(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    kind, name = one(args.resource, "scale")
    w = client.scale(need_project(args), kind, name, args.replicas, if_match=args.if_match)
    return _operated(w, "scaled", args.output, out)


def cmd_operation(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    operation = args.command
    method = getattr(client, operation)
    kind, name = one(args.resource, operation)
    w = method(need_project(args), kind, name, if_match=args.if_match)
    past = {"pause": "paused", "resume": "resumed", "stop": "stopped", "start": "started", "restart": "restarted"}
    return _operated(w, past[operation], args.output, out)


def cmd_restart_container(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    kind, name = one(args.resource, "restart-container")
    w = client.restart_container(project, kind, name, args.container, pod=args.pod, if_match=args.if_match)
    where = f"pod {args.pod}" if args.pod else "every pod"
    return _operated(w, f"container {args.container} restarted in {where}", args.output, out)


def _operated(w: Workload, verb: str, output: Output, out: TextIO) -> int:
    if output in ("table", "wide"):
        out.write(f"{w.kind.lower()}/{w.name} {verb}\n")
    else:
        show_workloads([w], output, out, single=True)
    return OK


def cmd_timeline(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    kind, name = optional_one(args.resource, "timeline") or (None, None)
    found = client.timeline(need_project(args), kind, name, since=args.since, until=args.until)
    if args.output.structured:
        dump(found.to_dict(), args.output, out)
        return OK
    rows = [["AT", "LEVEL", "SOURCE", "WORKLOAD", "TITLE", "MESSAGE"]]
    rows += [
        [e.at, e.level, e.source, str(e.workload) if e.workload else "-", e.title, e.message] for e in found.entries
    ]
    table(rows, out)
    return OK


def cmd_version(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    """The client's version, then the server's (``GET /api/v1/version/``) unless ``--client``."""
    server = None if args.client else client.server_version()
    if args.output.structured:
        value: dict[str, Any] = {"clientVersion": __version__}
        if server is not None:
            value["serverVersion"] = server.to_dict()
        dump(value, args.output, out)
        return OK
    out.write(f"Client Version: {__version__}\n")
    if server is not None:
        out.write(f"Server Version: {server.version} (API {server.api})\n")
    return OK
