"""``pincompute history`` and ``get workloads --deleted``: a workload's recorded history, deleted ones too.

    pincompute get workloads --deleted -n PROJECT        the project's deleted workloads whose history is kept
    pincompute history KIND/NAME -n PROJECT [--since T] [--until T] [--category state,scale,...]

``history`` reads the live workload's timeline (recorded history merged in) and, when no such workload lives, the
deleted one's (its spec at deletion with ``-o yaml|json``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, TextIO

from pinconsole_sdk.cli_commands import need_project
from pinconsole_sdk.cli_output import dump, table
from pinconsole_sdk.cli_targets import one
from pinconsole_sdk.client import Client, _seg, canonical_kind
from pinconsole_sdk.errors import NotFound

OK = 0
Handler = Callable[[Client, argparse.Namespace, TextIO], int]


def add_parsers(sub: Any, common: list[argparse.ArgumentParser], get: argparse.ArgumentParser) -> None:
    get.add_argument("--deleted", action="store_true", help="workloads: the deleted ones whose history is kept")
    history = sub.add_parser("history", parents=common, help="a workload's recorded history (deleted ones too)")
    history.add_argument("resource", nargs="+", metavar="KIND[/NAME] [NAME]")
    history.add_argument("--since", help="entries at or after this time (RFC 3339)")
    history.add_argument("--until", help="entries at or before this time (RFC 3339)")
    history.add_argument(
        "--category", action="append", help="only these kinds: state, admission, placement, revision, scale, ..."
    )


def with_deleted(cmd_get: Handler) -> Handler:
    """``get`` with ``--deleted``: the deleted list; without it, ``cmd_get`` as before."""

    def handler(client: Client, args: argparse.Namespace, out: TextIO) -> int:
        return cmd_get_deleted(client, args, out) if args.deleted else cmd_get(client, args, out)

    return handler


def cmd_get_deleted(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    body = client.request("GET", f"projects/{_seg(need_project(args))}/workloads/deleted/")
    if args.output.structured:
        dump(body, args.output, out)
        return OK
    rows = [["KIND", "NAME", "CREATED", "DELETED"]]
    rows += [[r["kind"], r["name"], r.get("createdAt") or "-", r["deletedAt"]] for r in body["results"]]
    table(rows, out)
    return OK


def cmd_history(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    kind, name = one(args.resource, "history")
    project, kind = need_project(args), canonical_kind(kind)
    params = {"since": args.since, "until": args.until, "category": args.category or None, "limit": 1000}
    path = f"projects/{_seg(project)}/workloads/{_seg(kind)}/{_seg(name)}/"
    try:
        body = client.request("GET", f"{path}timeline/", params=params)
        entries, deleted = body["results"], None
    except NotFound:
        deleted = client.request(
            "GET", f"projects/{_seg(project)}/workloads/deleted/{_seg(kind)}/{_seg(name)}/", params=params
        )
        entries = deleted["history"]
    if args.output.structured:
        dump(deleted if deleted is not None else body, args.output, out)
        return OK
    if deleted is not None:
        out.write(f"{kind}/{name} was deleted at {deleted['deletedAt']}\n")
    rows = [["AT", "CATEGORY", "LEVEL", "SOURCE", "TITLE", "SUBJECT", "MESSAGE"]]
    rows += [
        [e["at"], e["category"], e["level"], e["source"], e["title"], e.get("subject") or "-", e["message"]]
        for e in entries
    ]
    table(rows, out)
    return OK


HANDLERS: dict[str, Handler] = {"history": cmd_history}
