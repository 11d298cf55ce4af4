"""``pincompute webhooks``: a project's webhooks (owners): add one (its signing secret printed once), change it, route
events to it, send a test, read its delivery log, remove it.

    pincompute webhooks list -p pay
    pincompute webhooks add team --target https://hooks.example.com/x --format slack --events workload.failed -p pay
    pincompute webhooks update team --disable -p pay            (--enable, --target, --format)
    pincompute webhooks routes team --events tier.usage,workload.degraded -p pay
    pincompute webhooks test team -p pay
    pincompute webhooks deliveries team -p pay
    pincompute webhooks remove team -p pay
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client

ACTIONS = ("list", "add", "update", "routes", "test", "deliveries", "remove")


def _path(project: str | None, *rest: str) -> str:
    if not project:
        raise UsageError("webhooks: give the project with -p PROJECT")
    return "/".join(["projects", quote(project, safe=""), "webhooks", *(quote(r, safe="") for r in rest)]) + "/"


def _events(text: str | None) -> list[str]:
    return [e.strip() for e in (text or "").split(",") if e.strip()]


def _changes(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if args.target:
        body["url"] = args.target
    if args.format:
        body["format"] = args.format
    if args.enable or args.disable:
        body["enabled"] = bool(args.enable)
    if args.events is not None:
        body["events"] = _events(args.events)
    return body


def cmd_webhooks(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.action != "list" and not args.name:
        raise UsageError(f"webhooks {args.action}: give the webhook's NAME")
    if args.action == "list":
        _table(client.request("GET", _path(args.project)), args, out)
    elif args.action == "add":
        if not args.target:
            raise UsageError("webhooks add: give --target URL")
        made = client.request("POST", _path(args.project), body={"name": args.name, **_changes(args)})
        _write(made, args, out, f"webhook/{made['name']} added; its signing secret, shown once:\n{made['secret']}\n")
    elif args.action == "update":
        body = _changes(args)
        if not body:
            raise UsageError("webhooks update: give --target, --format, --enable, --disable or --events")
        _write(client.request("PATCH", _path(args.project, args.name), body=body), args, out,
               f"webhook/{args.name} updated\n")  # fmt: skip
    elif args.action == "routes":
        if args.events is None:
            raise UsageError("webhooks routes: give --events A,B (an empty value routes none)")
        hook = client.request("PUT", _path(args.project, args.name, "routes"), body={"events": _events(args.events)})
        _write(hook, args, out, f"webhook/{args.name} gets: {', '.join(hook['events']) or 'nothing'}\n")
    elif args.action == "test":
        sent = client.request("POST", _path(args.project, args.name, "test"))
        _write(sent, args, out, f"a test event was queued to webhook/{args.name} (delivery {sent['delivery']})\n")
    elif args.action == "deliveries":
        _log(client.request("GET", _path(args.project, args.name, "deliveries")), args, out)
    else:
        client.request("DELETE", _path(args.project, args.name))
        out.write(f"webhook/{args.name} removed\n")
    return 0


def _write(body: Any, args: argparse.Namespace, out: TextIO, text: str) -> None:
    out.write(json.dumps(body, indent=2) + "\n" if args.output.format == "json" else text)


def _table(hooks: list[dict[str, Any]], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.format == "json":
        out.write(json.dumps(hooks, indent=2) + "\n")
        return
    out.write(f"{'NAME':<20} {'FORMAT':<8} {'STATE':<9} {'FAILURES':<9} EVENTS\n")
    for h in hooks:
        state = "enabled" if h["enabled"] else "disabled"
        out.write(f"{h['name']:<20} {h['format']:<8} {state:<9} {h['failures']:<9} {','.join(h['events']) or '-'}\n")


def _log(deliveries: list[dict[str, Any]], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.format == "json":
        out.write(json.dumps(deliveries, indent=2) + "\n")
        return
    out.write(f"{'DELIVERY':<9} {'EVENT':<22} {'STATE':<10} {'ATTEMPT':<8} {'STATUS':<7} {'TOOK':<8} ERROR\n")
    for d in deliveries:
        for a in d["attempts"] or [{"number": "-", "status_code": None, "duration_ms": "-", "error": ""}]:
            took = f"{a['duration_ms']}ms" if a["duration_ms"] != "-" else "-"
            status = a["status_code"] or "-"
            out.write(f"{d['id']:<9} {d['event']:<22} {d['state']:<10} {a['number']!s:<8} {status!s:<7} {took:<8} "
                      f"{a['error']}\n")  # fmt: skip


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    hooks = sub.add_parser("webhooks", parents=common, help="a project's webhooks and their routes (owners)")
    hooks.add_argument("action", choices=ACTIONS)
    hooks.add_argument("name", nargs="?", help="the webhook's name (all but list)")
    hooks.add_argument("--target", help="add/update: the URL events are POSTed to (--url is the portal's)")
    hooks.add_argument("--format", choices=("generic", "slack"), help="add/update: the body's shape")
    hooks.add_argument("--events", help="add/update/routes: comma-separated event names routed to it")
    state = hooks.add_mutually_exclusive_group()
    state.add_argument("--enable", action="store_true", help="update: send again (clears the failure count)")
    state.add_argument("--disable", action="store_true", help="update: stop sending")


HANDLERS = {"webhooks": cmd_webhooks}
