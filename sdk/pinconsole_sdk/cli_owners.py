"""``pincompute owners``: a project's team, on-call contact and links (``/api/v1/projects/<p>/ownership/``).

    pincompute owners get -n ads                                      the team, who is on call, the links
    pincompute owners set --oncall '#ads-oncall' -n ads                change the on-call contact, keep the rest
    pincompute owners set --link runbook Runbook https://wiki/ads \\
        --link repository Code https://git/ads -n ads                  replace the links with these
    pincompute owners set --no-links --team ads-infra -n ads           drop every link, change the team

Everyone in the project reads; owners and platform admins set (the server refuses others with 403). ``set`` reads
the current values, changes what its options name and writes the whole (PUT), as the project page does. An on-call
contact is an email, a ``@handle`` or ``#channel``, or an http(s) pager URL; the server names a field it refuses.
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

KINDS = ("repository", "docs", "runbook", "dashboard", "other")


def _path(project: str) -> str:
    return f"projects/{quote(project, safe='')}/ownership/"


def _show(owned: dict[str, Any], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.structured:
        dump(owned, args.output, out)
        return
    out.write(f"team:    {owned['team']}\n")
    out.write(f"on call: {owned['oncall'] or '(not set)'}\n")
    out.write("links:\n" if owned["links"] else "links:   (none)\n")
    width = max((len(link["kind"]) for link in owned["links"]), default=0)
    for link in owned["links"]:
        out.write(f"  {link['kind']:<{width}}  {link['title']}  {link['url']}\n")


def cmd_owners(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    owned = client.request("GET", _path(project))
    if args.action == "get":
        _show(owned, args, out)
        return OK
    if args.link and args.no_links:
        raise UsageError("set: give --link or --no-links, not both")
    if args.team is None and args.oncall is None and not args.link and not args.no_links:
        raise UsageError("set: give --team, --oncall, --link or --no-links")
    body = {"team": owned["team"], "oncall": owned["oncall"], "links": owned["links"]}
    if args.team is not None:
        body["team"] = args.team
    if args.oncall is not None:
        body["oncall"] = args.oncall
    if args.link or args.no_links:
        body["links"] = [{"kind": kind, "title": title, "url": url} for kind, title, url in args.link]
    _show(client.request("PUT", _path(project), body=body), args, out)
    return OK


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """``owners get|set`` on ``sub`` (cli.build_parser's subparsers)."""
    owners = sub.add_parser("owners", parents=common, help="a project's team, on-call contact and links")
    actions = owners.add_subparsers(dest="action", metavar="ACTION")
    owners.set_defaults(action="get")
    actions.add_parser("get", parents=common, help="the team, the on-call contact and the links")
    setter = actions.add_parser("set", parents=common, help="change the team, the on-call contact or the links")
    setter.add_argument("--team")
    setter.add_argument("--oncall", help="an email, @handle or #channel, or an http(s) pager URL; '' for none")
    setter.add_argument(
        "--link",
        nargs=3,
        action="append",
        default=[],
        metavar=("KIND", "TITLE", "URL"),
        help=f"repeatable; replaces every link. KIND: {', '.join(KINDS)}",
    )
    setter.add_argument("--no-links", action="store_true", help="drop every link")


HANDLERS = {"owners": cmd_owners}
