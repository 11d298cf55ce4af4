"""``pincompute apply --dry-run=server`` and ``pincompute diff``: what applying files would do, from the portal's
preview (``Client.preview``: ``POST /api/v1/projects/<project>/workloads/preview/``), and nothing is written.

    pincompute apply -f FILE [-f ...] --dry-run[=server|client|none]
    pincompute diff -f FILE [-f ...]

``--dry-run=server`` says, per document, what kubectl says (created, configured or unchanged, "(server dry run)"),
then the preview's summary: the objects each member cluster would get, the placement with every cluster's result,
and the quota fit. A document the apply would refuse prints the refusal and the run exits 1, after every document.
``--dry-run`` alone is ``server``; ``client`` is taken as ``server`` too (kubectl's client dry run guesses without
the server's checks; the preview writes nothing and knows); ``none`` (the default) applies.

``diff`` prints a unified diff of each live workload against the object applying the file would make (an absent one
against nothing), as ``kubectl diff`` does: exit code 0 no differences, 1 differences, above 1 an error (the usual
exit code plus one, as kubectl diff adds one to its own).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable
from typing import Any, TextIO

import yaml

from pinconsole_sdk.cli_errors import API_ERROR, OK, USAGE, exit_code, report
from pinconsole_sdk.cli_output import dump
from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client
from pinconsole_sdk.errors import ApiError, ConnectionFailed
from pinconsole_sdk.preview_models import QuotaFit, WorkloadPreview

Handler = Callable[[Client, argparse.Namespace, TextIO], int]
DRY_RUN_MODES = ("none", "client", "server")
NO_DIFFERENCES, DIFFERENCES = 0, 1


def add_dry_run(apply: argparse.ArgumentParser) -> None:
    """``apply``'s ``--dry-run``: kubectl's values, and alone for ``server``."""
    apply.add_argument(
        "--dry-run",
        dest="dry_run_mode",
        nargs="?",
        const="server",
        default="none",
        choices=DRY_RUN_MODES,
        help="server (or alone): say what applying would do, with the preview (objects, placement, quota fit); "
        "write nothing. client is taken as server. none (default): apply",
    )
    apply.set_defaults(dry_run=False)  # apply itself writes: the dry runs are answered here


def add_diff(sub: Any, common: list[argparse.ArgumentParser], *, files: Callable[..., None]) -> None:
    diff = sub.add_parser(
        "diff",
        parents=common,
        help="a unified diff of the live workloads against what applying the files would make",
        epilog="Exit codes: 0 no differences, 1 differences, >1 an error (its usual code plus one).",
    )
    files(diff, required=True)


def with_dry_run(apply: Handler) -> Handler:
    """``apply``, or its dry run when ``--dry-run`` asks for one."""

    def handler(client: Client, args: argparse.Namespace, out: TextIO) -> int:
        if args.dry_run_mode == "none":
            return apply(client, args, out)
        return cmd_apply_dry_run(client, args, out)

    return handler


def _previews(client: Client, args: argparse.Namespace, if_match: str | None = None) -> list[WorkloadPreview]:
    from pinconsole_sdk import cli  # the entry module imports this one to register its commands

    docs = cli.read_documents(args.filename, sys.stdin, recursive=args.recursive)
    if not docs:
        raise UsageError("no documents in " + ", ".join(args.filename))
    try:
        return [client.preview(doc, args.project or None, if_match=if_match) for _, doc in docs]
    except ValueError as exc:  # a document without kind, name or project
        raise UsageError(str(exc)) from None


def cmd_apply_dry_run(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    shown = _previews(client, args, args.if_match)
    refused = False
    for p in shown:
        refused |= p.refusal is not None
        if args.output == "table":
            out.write(f"{p.kind.lower()}/{p.name} {p.action} (server dry run)\n")
            out.write(summary(p))
        elif args.output == "name":
            out.write(f"{p.kind.lower()}/{p.name}\n")
        if p.refusal is not None:
            sys.stderr.write(f"Error from server ({p.refusal.code}): {p.kind.lower()}/{p.name} would be refused: ")
            sys.stderr.write(p.refusal.message + "\n")
            sys.stderr.writelines(f"  {f.path or '(document)'}: {f.message}\n" for f in p.refusal.fields)
        for problem in p.problems:
            sys.stderr.write(f"warning: {problem}\n")
    if args.output in ("json", "yaml"):
        single = len(shown) == 1
        dump(shown[0].to_dict() if single else {"items": [p.to_dict() for p in shown]}, args.output, out)
    return API_ERROR if refused else OK


def summary(p: WorkloadPreview) -> str:
    """The preview in a few indented lines: objects per cluster, placement, quota fit, the NetworkPolicies its pods
    fall under, the spec's changes."""
    lines = []
    for c in p.clusters:
        objects = ", ".join(
            f"{o.kind} {o.name}" + (f" ({len(o.injected)} parts injected)" if o.injected else "") for o in c.objects
        )
        lines.append(f"  objects on {c.cluster}: {objects or 'none'}")
    for row in p.placement.clusters:
        if row.chosen:
            what = f"chosen, {row.replicas} replica(s)" if row.replicas is not None else "chosen"
        else:
            what = "filtered out: " + "; ".join(row.reasons) if row.reasons else "not chosen (a higher score won)"
        score = f" score {row.score:g}" if row.score is not None else ""
        lines.append(f"  placement {row.name} ({row.zone or '-'}): {what}{score}")
    if p.placement.problem:
        lines.append(f"  placement: {p.placement.problem}")
    lines.append(f"  quota {quota_line(p.quota)}")
    if p.room is not None:
        lines += [f"  room {m}" for m in p.room.later]
        if p.room.later or p.quota.verdict != "fits":
            lines.append(f"  largest pod that fits now: {'; '.join(p.room.largest) or 'no member'}")
    lines += [f"  network {n.name} admits {'; '.join(n.admits) or 'nothing'}" for n in p.network]
    if p.diff is not None:
        lines += [f"  change {c.path}: {_value(c.before)} -> {_value(c.after)}" for c in p.diff.spec]
        if p.diff.stale:
            lines.append(f"  {p.diff.stale}")
    return "".join(line + "\n" for line in lines)


def quota_line(quota: QuotaFit) -> str:
    """``OnDemand fits: cpu 800m (admitted 4300m, waiting 2300m, granted 8); ...`` (the resources it asks)."""
    asked = [r for r in quota.for_tier() if r.this]
    parts = [
        f"{r.resource} {r.text['this']} (admitted {r.text['admitted']}, waiting {r.text['waiting']}, "
        f"granted {r.text['granted']})"
        for r in asked
    ]
    verdict = {"fits": "fits now", "waits": "waits for admission", "never": "never fits the grant"}[quota.verdict]
    said = f"{quota.tier} {verdict}: " + ("; ".join(parts) or "asks nothing")
    return said + "".join(f"; {m}" for m in quota.messages)


def _value(value: Any) -> str:
    if value is None:
        return "(absent)"
    return yaml.safe_dump(value, default_flow_style=True, width=10**6).removesuffix("\n...\n").strip()


def cmd_diff(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    """Exit 0 without differences, 1 with, the usual error code plus one on an error (kubectl diff's)."""
    try:
        shown = _previews(client, args)
    except UsageError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return USAGE + 1
    except (ApiError, ConnectionFailed) as exc:
        report(exc, sys.stderr)
        return exit_code(exc) + 1
    found = NO_DIFFERENCES
    for p in shown:
        if p.refusal is not None:
            sys.stderr.write(f"Error from server ({p.refusal.code}): {p.kind.lower()}/{p.name}: {p.refusal.message}\n")
            sys.stderr.writelines(f"  {f.path or '(document)'}: {f.message}\n" for f in p.refusal.fields)
            return API_ERROR + 1
        text = unified(p)
        out.write(text)
        found = max(found, DIFFERENCES if text else NO_DIFFERENCES)
    return found


def unified(p: WorkloadPreview) -> str:
    """The live object against the one the apply would make, as YAML (keys sorted, as kubectl diff prints them)."""
    name = f"{p.kind.lower()}/{p.project}/{p.name}"
    before = yaml.safe_dump(p.live, sort_keys=True).splitlines(keepends=True) if p.live is not None else []
    after = yaml.safe_dump(p.document, sort_keys=True).splitlines(keepends=True)
    live = f"live/{name}" if p.live is not None else "/dev/null"
    return "".join(difflib.unified_diff(before, after, fromfile=live, tofile=f"merged/{name}"))
