"""``pincompute access ...``: time-limited access to a project (the ``access-requests`` and ``access-grants`` API).

pincompute access request -n ads developer --for 4h --reason "INC-42"   ask (sidecar-exec: a platform admin decides)
pincompute access list -n ads [--state pending]    requests (owners: all of the project's) and live grants
pincompute access approve -n ads 12 [--reason ok]  owners (platform admins for sidecar-exec)
pincompute access deny -n ads 12 [--reason no]
pincompute access grant -n ads bob viewer --for 1d --reason "audit"     an owner's direct grant
pincompute access revoke -n ads 7                  end a live grant now
"""

from __future__ import annotations

import argparse
import re
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.cli_commands import need_project
from pinconsole_sdk.client import Client

ACCESS = ("viewer", "developer", "owner", "sidecar-exec")
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(\d+)([smhd]?)")


def duration(text: str) -> int:
    """``90``, ``30m``, ``4h``, ``2d`` as seconds (argparse's type: a bad one is a usage error)."""
    found = _DURATION.fullmatch(text.strip())
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r}: give a duration such as 30m, 4h or 2d")
    return int(found.group(1)) * UNITS[found.group(2) or "s"]


def _path(project: str, *rest: str) -> str:
    return "/".join(["projects", quote(project, safe=""), *rest]) + "/"


def _left(seconds: int) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s"


def cmd_access(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    project = need_project(args)
    verb = args.access_verb
    if verb == "request":
        body = {"access": args.access, "duration_seconds": args.duration, "reason": args.reason}
        row = client.request("POST", _path(project, "access-requests"), body=body)
        out.write(f"request {row['id']}: {row['access']} in {project} for {_left(row['duration_seconds'])}, pending\n")
    elif verb in ("approve", "deny"):
        row = client.request(
            "POST", _path(project, "access-requests", str(args.id), verb), body={"reason": args.reason}
        )
        out.write(
            f"request {row['id']} {row['state']}" + (f": grant {row['grant']}" if row.get("grant") else "") + "\n"
        )
    elif verb == "grant":
        body = {"user": args.user, "access": args.access, "duration_seconds": args.duration, "reason": args.reason}
        grant = client.request("POST", _path(project, "access-grants"), body=body)
        out.write(f"grant {grant['id']}: {grant['user']} {grant['access']} in {project} until {grant['ends_at']}\n")
    elif verb == "revoke":
        client.request("DELETE", _path(project, "access-grants", str(args.id)))
        out.write(f"grant {args.id} revoked\n")
    else:
        _list(client, project, args.state, out)
    return 0


def _list(client: Client, project: str, state: str | None, out: TextIO) -> None:
    requests: list[dict[str, Any]] = client.request(
        "GET", _path(project, "access-requests"), params={"state": state} if state else None
    )
    out.write("REQUEST  USER  ACCESS  FOR  STATE  REASON\n")
    for row in requests:
        reason = row["reason"].replace("\n", " ")[:60]
        out.write(
            f"{row['id']}  {row['user']}  {row['access']}  {_left(row['duration_seconds'])}  {row['state']}  {reason}\n"
        )
    grants: list[dict[str, Any]] = client.request("GET", _path(project, "access-grants"))
    out.write("GRANT  USER  ACCESS  LEFT  BY\n")
    for grant in grants:
        by = grant.get("granted_by") or "-"
        out.write(f"{grant['id']}  {grant['user']}  {grant['access']}  {_left(grant['seconds_left'])}  {by}\n")


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    access = sub.add_parser("access", parents=common, help="time-limited access: request, list, decide, grant, revoke")
    verbs = access.add_subparsers(dest="access_verb", metavar="VERB", required=True)
    request = verbs.add_parser("request", parents=common, help="ask for a role or sidecar-exec for a while")
    request.add_argument("access", choices=ACCESS)
    request.add_argument("--for", dest="duration", type=duration, required=True, help="30m, 4h, 2d")
    request.add_argument("--reason", required=True, help="why (the approvers read it)")
    listing = verbs.add_parser("list", parents=common, help="the project's requests (yours, or all for owners), grants")
    listing.add_argument("--state", choices=("pending", "approved", "denied"))
    for name, text in (("approve", "grant what a request asks"), ("deny", "refuse a request")):
        decide = verbs.add_parser(name, parents=common, help=text)
        decide.add_argument("id", type=int, help="the request's number (access list)")
        decide.add_argument("--reason", default="", help="why (optional)")
    grant = verbs.add_parser("grant", parents=common, help="an owner's direct time-limited grant")
    grant.add_argument("user")
    grant.add_argument("access", choices=ACCESS)
    grant.add_argument("--for", dest="duration", type=duration, required=True, help="30m, 4h, 2d")
    grant.add_argument("--reason", required=True)
    revoke = verbs.add_parser("revoke", parents=common, help="end a live grant now")
    revoke.add_argument("id", type=int, help="the grant's number (access list)")


HANDLERS = {"access": cmd_access}
