"""``pincompute rollout undo KIND/NAME [--to-revision N]``: back to an earlier revision (``POST .../rollback/``).

Without ``--to-revision``, the newest revision that is not current, as ``kubectl rollout undo``. ``--if-match``
makes it conditional on the version ``get`` shows (exit code 4 when stale); refused to viewers (exit code 1)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

import yaml

from pinconsole_sdk.client import Client
from pinconsole_sdk.models import canonical_kind


def add_rollout(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    """Register ``rollout undo`` in the CLI's subcommands."""
    rollout = sub.add_parser("rollout", parents=common, help="manage a workload's rollout: undo")
    verbs = rollout.add_subparsers(dest="rollout_verb", metavar="VERB", required=True)
    undo = verbs.add_parser("undo", parents=common, help="go back to an earlier revision (default: the previous)")
    undo.add_argument("target", metavar="KIND/NAME", help="e.g. pinapp/web")
    undo.add_argument("--to-revision", type=int, dest="to_revision", help="the revision to go back to")
    undo.add_argument(
        "--if-match", metavar="VERSION", help="write only if the workload is still at this version; else exit code 4"
    )


def kind_and_name(target: str) -> tuple[str, str]:
    kind, slash, name = target.partition("/")
    if not slash or not kind or not name or "/" in name:
        raise ValueError(f"rollout undo takes KIND/NAME (e.g. pinapp/web), not {target!r}")
    return canonical_kind(kind), name


def cmd_rollout(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if not args.project:
        raise ValueError("a project is needed: -p PROJECT")
    if args.to_revision is not None and args.to_revision < 1:
        raise ValueError("--to-revision must be a revision's number (1 or more)")
    kind, name = kind_and_name(args.target)
    body = {"revision": args.to_revision} if args.to_revision is not None else {}
    answer = client.request(
        "POST",
        Client._one(args.project, kind, name) + "rollback/",
        body=body,
        if_match=args.if_match,
        idempotent=args.to_revision is not None,  # "the previous" moves once it is done: never sent twice
    )
    if args.output == "json":
        out.write(json.dumps(answer, indent=2) + "\n")
    elif args.output == "yaml":
        out.write(yaml.safe_dump(answer, sort_keys=False))
    elif args.output == "name":
        out.write(f"{kind.lower()}/{name}\n")
    else:
        _said(answer, kind, name, out)
    return 0


def _said(answer: dict[str, Any], kind: str, name: str, out: TextIO) -> None:
    what = f"{kind.lower()}/{name}"
    if not answer.get("changed"):
        out.write(f"{what} skipped rollback (already at revision {answer.get('revision')})\n")
        return
    out.write(f"{what} rolled back to revision {answer.get('revision')}\n")
    for change in answer.get("changes") or []:
        before, after = json.dumps(change.get("before")), json.dumps(change.get("after"))
        out.write(f"  {change.get('path')}: {before} -> {after}\n")
