"""``pincompute policy``: a project's policy (``/api/v1/projects/<p>/policy/``) and the defaults new projects start
with (``/api/v1/policy-defaults/``).

    pincompute policy get -n web                                  the policy web is under
    pincompute policy get --defaults                              the defaults (platform admins)
    pincompute policy set -n web --kinds PinApp,PinPod --registries registry.local,ghcr.io/acme --max-cpu 4
    pincompute policy set -n web --tiers any --max-memory none --sidecar-exec off --notify-on-shell on

Every member reads a project's policy; platform admins change it (the server refuses others with 403). ``set``
changes only the fields given (read, change, PUT); ``any`` lifts a list's restriction, ``none`` a maximum.
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

LISTS = (("kinds", "allowedKinds"), ("tiers", "allowedTiers"), ("registries", "imageRegistries"))
CAPS = ("cpu", "memory", "gpu")
FLAGS = (("sidecar_exec", "sidecarExec"), ("notify_on_shell", "notifyOnShell"))


def _path(args: argparse.Namespace) -> str:
    if args.defaults:
        if args.project:
            raise UsageError("policy: give -n PROJECT or --defaults, not both")
        return "policy-defaults/"
    return f"projects/{quote(need_project(args), safe='')}/policy/"


def _shown(value: Any, unset: str) -> str:
    if value is None:
        return unset
    return ", ".join(value) if value else "none"


def _show(policy: dict[str, Any], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.structured:
        dump(policy, args.output, out)
        return
    caps = policy["maxPerContainer"]
    out.write(f"allowed kinds:      {_shown(policy['allowedKinds'], 'any')}\n")
    out.write(f"allowed tiers:      {_shown(policy['allowedTiers'], 'any')}\n")
    out.write(f"image registries:   {_shown(policy['imageRegistries'], 'any')}\n")
    out.write(f"max per container:  {', '.join(f'{k} {v}' for k, v in caps.items()) if caps else 'none'}\n")
    out.write(f"sidecar exec:       {'by grant' if policy['sidecarExec'] else 'forbidden'}\n")
    out.write(f"notify on shell:    {'on' if policy['notifyOnShell'] else 'off'}\n")


def _changed(policy: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    changed = dict(policy)
    for option, field in LISTS:
        text = getattr(args, option)
        if text is not None:
            items = [item.strip() for item in text.split(",") if item.strip()]
            changed[field] = None if items == ["any"] else items
    caps = dict(policy["maxPerContainer"] or {})
    for name in CAPS:
        amount = getattr(args, f"max_{name}")
        if amount == "none":
            caps.pop(name, None)
        elif amount is not None:
            caps[name] = amount
    changed["maxPerContainer"] = caps or None
    for option, field in FLAGS:
        value = getattr(args, option)
        if value is not None:
            changed[field] = value == "on"
    if changed == policy:
        raise UsageError("policy set: give at least one change (--kinds, --tiers, --registries, --max-*, ...)")
    return changed


def cmd_policy(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    path = _path(args)
    policy = client.request("GET", path)
    if args.action == "set":
        policy = client.request("PUT", path, body=_changed(policy, args))
    _show(policy, args, out)
    return OK


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """``policy get|set`` on ``sub`` (cli.build_parser's subparsers)."""
    policy = sub.add_parser("policy", parents=common, help="a project's policy, or the defaults: get, set")
    actions = policy.add_subparsers(dest="action", metavar="ACTION")
    policy.set_defaults(action="get", defaults=False)
    for name, text in (("get", "show the policy"), ("set", "change the fields given (platform admins)")):
        p = actions.add_parser(name, parents=common, help=text)
        p.add_argument("--defaults", action="store_true", help="the policy new projects start with")
        if name == "get":
            continue
        p.add_argument("--kinds", metavar="KIND,...|any", help="allowed kinds")
        p.add_argument("--tiers", metavar="TIER,...|any", help="allowed tiers")
        p.add_argument("--registries", metavar="REGISTRY,...|any", help="image registries (host or path prefix)")
        for resource in CAPS:
            p.add_argument(f"--max-{resource}", metavar="QUANTITY|none", help=f"most {resource} per container")
        p.add_argument("--sidecar-exec", choices=("on", "off"), help="a sidecar-exec grant opens platform sidecars")
        p.add_argument("--notify-on-shell", choices=("on", "off"), help="tell the owners of every shell opened")


HANDLERS = {"policy": cmd_policy}
