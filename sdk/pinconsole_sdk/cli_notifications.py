"""``pincompute notifications``: your notifications (the notifications API).

pincompute notifications              every notification, newest first
pincompute notifications --unread     the unread ones only
pincompute notifications --read 12    mark notification 12 read
pincompute notifications --read-all   mark every unread one read
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO
from urllib.parse import parse_qs, urlsplit

from pinconsole_sdk.client import Client


def _rows(client: Client, unread: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    params: dict[str, Any] = {"unread": "true"} if unread else {}
    while True:
        page = client.request("GET", "notifications/", params=params)
        rows += page.get("results") or []
        if not page.get("next"):
            return rows
        params = {k: v[0] for k, v in parse_qs(urlsplit(page["next"]).query).items()}  # on our own base URL


def _line(row: dict[str, Any]) -> str:
    mark = " " if row["read"] else "*"
    times = f" (x{row['count']})" if row["count"] > 1 else ""
    where = f"{row['project']}  " if row["project"] else ""
    return f"{mark} {row['id']:>6}  {row['updated_at'][:16].replace('T', ' ')}  {where}{row['text']}{times}"


def cmd_notifications(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.read is not None:
        row = client.request("POST", f"notifications/{args.read}/read/", idempotent=True)
        out.write(f"notification {row['id']} read\n")
        return 0
    if args.read_all:
        marked = client.request("POST", "notifications/read-all/", idempotent=True)["marked"]
        out.write(f"{marked} notification(s) marked read\n")
        return 0
    rows = _rows(client, args.unread)
    for row in rows:
        out.write(_line(row) + "\n")
    if not rows:
        out.write("no unread notifications\n" if args.unread else "no notifications\n")
    return 0


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """The command on ``sub`` (cli.build_parser's subparsers)."""
    p = sub.add_parser("notifications", parents=common, help="list your notifications (* unread), or mark them read")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--unread", action="store_true", help="only the unread ones")
    which.add_argument("--read", type=int, metavar="ID", help="mark notification ID read")
    which.add_argument("--read-all", action="store_true", help="mark every unread notification read")


HANDLERS = {"notifications": cmd_notifications}
