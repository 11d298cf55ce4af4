"""``pincompute network``: a project's network isolation on the members (``/api/v1/projects/<p>/network/``).

    pincompute network -n web                                   what each NetworkPolicy admits, and the openings
    pincompute network open 8443 --from-project payments -n web  admit TCP 8443 from payments' pods
    pincompute network open 443 --ingress -n web                 admit TCP 443 from the ingress controller
    pincompute network close 8443 [--protocol TCP] -n web        remove every opening of that port

Everyone in the project reads; owners and platform admins open and close (the server refuses others with 403).
``open`` and ``close`` replace the whole list (read, change, PUT), as the project page does.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.cli_commands import need_project
from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import dump
from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client

PROTOCOLS = ("TCP", "UDP", "SCTP")


def _path(project: str) -> str:
    return f"projects/{quote(project, safe='')}/network/"


def _show(network: dict[str, Any], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.structured:
        dump(network, args.output, out)
        return
    for policy in network["policies"]:
        out.write(f"{policy['name']}:\n")
        for line in policy["admits"] or ["nothing (no opening)"]:
            out.write(f"  admits {line}\n")
    out.write("OPENINGS\n" if network["openings"] else "no openings\n")
    for o in network["openings"]:
        sources = [*o["projects"], *(["ingress"] if o["ingress"] else [])]
        out.write(f"  {o['protocol']} {o['port']} from {', '.join(sources)}\n")


def _port(text: str) -> int:
    """argparse's type: a bad port is a usage error (the server checks the range too)."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: give a port from 1 to 65535")
    return int(text)


def cmd_network(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    network = client.request("GET", _path(project))
    if args.action == "show":
        _show(network, args, out)
        return OK
    openings = network["openings"]
    if args.action == "open":
        if not args.from_project and not args.ingress:
            raise UsageError("open: name a project (--from-project) or --ingress")
        added = {"port": args.port, "protocol": args.protocol, "projects": args.from_project, "ingress": args.ingress}
        openings = [*openings, added]
    else:
        kept = [o for o in openings if (o["port"], o["protocol"]) != (args.port, args.protocol)]
        if len(kept) == len(openings):
            raise UsageError(f"close: {project} has no opening of {args.protocol} {args.port}")
        openings = kept
    _show(client.request("PUT", _path(project), body={"openings": openings}), args, out)
    return OK


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """``network [show|open|close]`` on ``sub`` (cli.build_parser's subparsers)."""
    network = sub.add_parser("network", parents=common, help="a project's network isolation: show, open, close")
    actions = network.add_subparsers(dest="action", metavar="ACTION")
    network.set_defaults(action="show")
    actions.add_parser("show", parents=common, help="what each NetworkPolicy admits, and the openings")
    for name, text in (("open", "admit a port from named projects or the ingress"), ("close", "remove a port")):
        p = actions.add_parser(name, parents=common, help=text)
        p.add_argument("port", type=_port)
        p.add_argument("--protocol", choices=PROTOCOLS, default="TCP")
        if name == "open":
            p.add_argument("--from-project", action="append", default=[], metavar="PROJECT", help="repeatable")
            p.add_argument("--ingress", action="store_true", help="from the ingress controller's namespaces")


HANDLERS = {"network": cmd_network}
