"""``pincompute recommend``: right-sizing advice for one workload, and applying it through the preview.

    pincompute recommend workload/NAME -n PROJECT [--window 7d]     per container: request, use, recommended, saving
    pincompute recommend pinapp/NAME -n PROJECT -o json             the API's body (its ``document`` is what applies)
    pincompute recommend workload/NAME -n PROJECT --apply           the preview (placement, quota fit, the spec's
                                                                    changes) first, then the write, If-Match the
                                                                    version the advice was read at

The advice is the portal's ``/api/v1/projects/<p>/workloads/<kind>/<name>/recommendations/`` (the VPA recommender's
model over Prometheus' use); ``--apply`` is ``apply`` of its document: refused by the preview, nothing is written.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from pinconsole_sdk.cli_errors import API_ERROR, OK
from pinconsole_sdk.cli_output import dump, table
from pinconsole_sdk.cli_preview import summary
from pinconsole_sdk.cli_targets import POD, WORKLOAD, UsageError, kind_of
from pinconsole_sdk.client import Client, _seg
from pinconsole_sdk.errors import NotFound

WINDOWS = ("1h", "6h", "24h", "7d")


def add_parser(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    rec = sub.add_parser("recommend", parents=common, help="recommended requests from use (right-sizing); --apply")
    rec.add_argument("target", metavar="workload/NAME|KIND/NAME")
    rec.add_argument("--window", choices=WINDOWS, default="7d", help="the use considered (default 7d)")
    rec.add_argument("--apply", action="store_true", help="preview the recommended requests, then apply them")


def _workload(client: Client, project: str, word: str) -> tuple[str, str]:
    """(kind, name) of ``KIND/NAME``, or of ``workload/NAME`` from the project's workloads of that name."""
    kind_word, _, name = word.partition("/")
    kind = kind_of(kind_word) if kind_word else POD
    if kind == POD or not name or "/" in name:
        raise UsageError("recommend takes workload/NAME or KIND/NAME")
    if kind != WORKLOAD:
        return kind, name
    kinds = sorted({w.kind for w in client.list_workloads(project) if w.name == name})
    if not kinds:
        raise NotFound(f"No workload named {name} in project {project}.", status=404, code="not_found")
    if len(kinds) > 1:
        raise UsageError(f"{name} names a {' and a '.join(kinds)}: say which, e.g. {kinds[0].lower()}/{name}")
    return kinds[0], name


def _row(c: dict[str, Any]) -> list[str]:
    r = c["recommendation"]
    request = f"{c['cpu_request'] or '-'}/{c['memory_request'] or '-'}"
    if r is None:
        return [c["container"], request, "-", "-", "-", "-", "none"]
    use = f"{c['cpu_use'] * 1000:.0f}m/{c['memory_use'] / (1 << 20):.0f}Mi"
    saving = "-" if c["cpu_saving"] is None else f"{c['cpu_saving']:.3f}/{c['memory_saving_gib']:.3f}"
    held = f" (held at the {' and '.join(r['capped'])} limit)" if r["capped"] else ""
    return [c["container"], request, use, f"{r['cpu']}/{r['memory']}{held}", saving, c["money_saving"] or "-",
            f"{r['confidence']} ({r['history_days']:.2f}d)"]  # fmt: skip


def cmd_recommend(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if not args.project:
        raise UsageError("a project is needed: -n PROJECT")
    kind, name = _workload(client, args.project, args.target)
    path = f"projects/{_seg(args.project)}/workloads/{_seg(kind)}/{_seg(name)}/recommendations/"
    body = client.request("GET", path, params={"window": args.window})
    if args.apply:
        return _apply(client, args, body, out)
    if args.output.structured:
        dump(body, args.output, out)
        return OK
    rows = [["CONTAINER", "REQUEST(cpu/mem)", "USE(p90/peak)", "RECOMMENDED", "SAVING(cores/GiB)",
             f"{body['currency']}/MONTH", "CONFIDENCE"], *map(_row, body["containers"])]  # fmt: skip
    if len(rows) == 1:
        out.write(f"{kind.lower()}/{name} runs no containers of its own\n")
        return OK
    table(rows, out)
    out.writelines(f"{c['container']}: {c['note']}\n" for c in body["containers"] if c["recommendation"] is None)
    return OK


def _apply(client: Client, args: argparse.Namespace, body: dict[str, Any], out: TextIO) -> int:
    what = f"{body['kind'].lower()}/{body['name']}"
    if body["document"] is None:
        sys.stderr.write(f"error: nothing to apply to {what}: no container has use in the last {body['window']}\n")
        return API_ERROR
    preview = client.preview(body["document"], args.project, if_match=body["version"])
    out.write(f"{what} {preview.action} (preview)\n{summary(preview)}")
    if preview.refusal is not None:
        sys.stderr.write(f"Error from server ({preview.refusal.code}): {what} would be refused: "
                         f"{preview.refusal.message}\n")  # fmt: skip
        sys.stderr.writelines(f"  {f.path or '(document)'}: {f.message}\n" for f in preview.refusal.fields)
        return API_ERROR
    result = client.apply(body["document"], args.project, if_match=body["version"])
    out.write(f"{what} {result.verb} (version {result.workload.version})\n")
    return OK


HANDLERS = {"recommend": cmd_recommend}
