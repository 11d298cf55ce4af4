"""How ``pincompute`` prints: tables (``-o wide`` adds columns), ``-o name``, ``-o json|yaml``, and ``-o jsonpath=``
templates as kubectl reads them (``{.items[*].name}``, literal text between expressions, ``{range ...}{end}``,
``{"\\n"}``), each expression evaluated by jsonpath-ng on the API's JSON (its camelCase names)."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import yaml
from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext.parser import parse as parse_jsonpath

from pinconsole_sdk.models import Pod, Workload

FORMATS = ("table", "wide", "yaml", "json", "name")
OUTPUT_HELP = "table (default), wide, yaml, json, name, or jsonpath=TEMPLATE (kubectl's: {.items[*].name})"


@dataclass(frozen=True)
class Output:
    """An ``-o`` value: a format, and the parsed template for ``jsonpath``."""

    format: str
    template: tuple[Any, ...] = ()

    @property
    def structured(self) -> bool:
        """Printed from the whole object (so a list must be read in full)."""
        return self.format in ("json", "yaml", "jsonpath")

    def __eq__(self, other: object) -> bool:  # ``args.output == "table"`` reads as before
        if isinstance(other, str):
            return self.format == other
        return isinstance(other, Output) and (self.format, self.template) == (other.format, other.template)

    def __hash__(self) -> int:
        return hash(self.format)


def output_format(text: str) -> Output:
    """``-o``'s value (argparse makes a refusal exit code 2)."""
    if text in FORMATS:
        return Output(text)
    head, sep, template = text.partition("=")
    if head == "jsonpath" and sep:
        try:
            return Output("jsonpath", compile_template(template))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"jsonpath={template!r}: {exc}") from None
    raise argparse.ArgumentTypeError(f"{text!r}: use {OUTPUT_HELP}")


# --- jsonpath templates ----------------------------------------------------------------------------------------

_PART = re.compile(r"\{((?:[^{}\"]|\"(?:[^\"\\]|\\.)*\")*)\}")


def compile_template(template: str) -> tuple[Any, ...]:
    """The template as a tree: ("text", str) | ("path", compiled) | ("range", compiled, body)."""
    if not template:
        raise ValueError("the template is empty")
    parts: list[Any] = []
    stack: list[tuple[Any, list[Any]]] = []
    at = 0
    for found in _PART.finditer(template):
        if found.start() > at:
            parts.append(("text", template[at : found.start()]))
        at = found.end()
        inner = found.group(1).strip()
        if inner.startswith('"') and inner.endswith('"') and len(inner) >= 2:
            parts.append(("text", json.loads(inner)))
        elif inner.startswith("range "):
            stack.append((_path(inner.removeprefix("range ").strip()), parts))
            parts = []
        elif inner == "end":
            if not stack:
                raise ValueError("{end} without {range ...}")
            expr, outer = stack.pop()
            outer.append(("range", expr, tuple(parts)))
            parts = outer
        else:
            parts.append(("path", _path(inner)))
    if "{" in template[at:] or "}" in template[at:]:
        raise ValueError("unbalanced braces")
    if at < len(template):
        parts.append(("text", template[at:]))
    if stack:
        raise ValueError("{range ...} without {end}")
    return tuple(parts)


def _path(expr: str) -> Any:
    if not expr:
        raise ValueError("an empty expression {}")
    text = expr if expr.startswith("$") else "$" + (expr if expr.startswith(("[", ".")) else "." + expr)
    try:
        return parse_jsonpath(text)
    except JSONPathError as exc:
        raise ValueError(f"{expr!r} is not a JSONPath expression ({exc})") from None


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def render_template(parts: Sequence[Any], data: Any) -> str:
    out: list[str] = []
    for part in parts:
        if part[0] == "text":
            out.append(part[1])
        elif part[0] == "path":
            out.append(" ".join(_shown(m.value) for m in part[1].find(data)))
        else:
            for match in part[1].find(data):
                values = match.value if isinstance(match.value, list) else [match.value]
                for value in values:
                    out.append(render_template(part[2], value))
    return "".join(out)


# --- printing ------------------------------------------------------------------------------------------------


def dump(value: Any, output: Output | str, out: TextIO) -> None:
    fmt = output.format if isinstance(output, Output) else output
    if fmt == "jsonpath" and isinstance(output, Output):
        text = render_template(output.template, value)
        out.write(text if text.endswith("\n") else text + "\n")
    elif fmt == "json":
        out.write(json.dumps(value, indent=2, sort_keys=False) + "\n")
    else:
        out.write(yaml.safe_dump(value, sort_keys=False, default_flow_style=False))


def table(rows: list[list[str]], out: TextIO) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("   ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() + "\n")


def ready(w: Workload) -> str:
    return f"{w.status.ready}/{w.status.desired}" if w.status.desired is not None else str(w.status.ready)


def admitted(value: bool | None) -> str:
    return {True: "admitted", False: "refused"}.get(value, "pending") if value is not None else "pending"


WORKLOAD_HEADER = ["PROJECT", "KIND", "NAME", "TIER", "STATUS", "READY", "CLUSTERS", "VERSION"]
WORKLOAD_WIDE = ["ADMISSION", "REASON", "CREATED"]


def workload_row(w: Workload, *, wide: bool = False, state: str | None = None) -> list[str]:
    row = [w.project, w.kind, w.name, w.tier, state or w.status.state, ready(w), ",".join(w.status.clusters) or "-"]
    row.append(w.version)
    if wide:
        row += [admitted(w.admission.admitted), w.status.reason or w.admission.reason or "-", w.created_at or "-"]
    return row


def workload_rows(items: Sequence[Workload], *, wide: bool = False) -> list[list[str]]:
    header = WORKLOAD_HEADER + (WORKLOAD_WIDE if wide else [])
    return [header] + [workload_row(w, wide=wide) for w in items]


def workload_name(w: Workload) -> str:
    return f"{w.kind.lower()}/{w.name}"


def show_workloads(items: Sequence[Workload], output: Output | str, out: TextIO, *, single: bool = False) -> None:
    if output == "name":
        out.writelines(workload_name(w) + "\n" for w in items)
    elif output in ("json", "yaml", "jsonpath"):
        dump(items[0].to_dict() if single else {"items": [w.to_dict() for w in items]}, output, out)
    elif items:
        table(workload_rows(items, wide=output == "wide"), out)
    else:
        out.write("No workloads found.\n")


POD_HEADER = ["CLUSTER", "NAME", "READY", "STATUS", "RESTARTS", "NODE", "WORKLOAD"]
POD_WIDE = ["IP", "KIND", "STARTED"]


def pod_rows(items: Sequence[tuple[str, Pod]], *, wide: bool = False, projects: bool = False) -> list[list[str]]:
    """``items``: (project, pod); a PROJECT column first with ``projects`` (``-A``)."""
    header = (["PROJECT"] if projects else []) + POD_HEADER + (POD_WIDE if wide else [])
    rows = [header]
    for project, p in items:
        row = [p.cluster, p.name, p.ready, p.status, str(p.restarts), p.node or "-", p.workload or "-"]
        if wide:
            row += [p.ip or "-", p.kind or "-", p.started or "-"]
        rows.append(([project] if projects else []) + row)
    return rows


def show_pods(items: Sequence[tuple[str, Pod]], output: Output, out: TextIO, *, projects: bool = False) -> None:
    if output == "name":
        out.writelines(f"pod/{p.name}\n" for _, p in items)
    elif output.structured:
        dump({"items": [p.to_dict() for _, p in items]}, output, out)
    elif items:
        table(pod_rows(items, wide=output == "wide", projects=projects), out)
    else:
        out.write("No pods found.\n")


def describe(w: Workload, entries: list[Any], out: TextIO) -> None:
    lines = [
        f"Name:         {w.name}",
        f"Kind:         {w.kind}",
        f"Project:      {w.project}",
        f"Tier:         {w.tier}",
        f"Version:      {w.version}",
        f"Created:      {w.created_at or '-'}",
        f"Labels:       {', '.join(f'{k}={v}' for k, v in (w.labels or {}).items()) or '<none>'}",
        f"Admission:    {admitted(w.admission.admitted)} ({w.admission.reason}) {w.admission.message}".rstrip(),
        f"Status:       {w.status.state}{' (deleting)' if w.deleting else ''} {w.status.reason}".rstrip(),
        f"Ready:        {ready(w)}",
        "Conditions:",
    ]
    lines += [f"  {c.type}={c.status} {c.reason} {c.message}".rstrip() for c in w.status.conditions or []] or [
        "  <none>"
    ]
    lines.append("Shards:")
    lines += [
        f"  {s.cluster} zone={s.zone or '-'} replicas={s.replicas} ready={s.ready} state={s.state}"
        + (f" unreachable since {s.unreachable_since}" if s.unreachable_since else "")
        for s in w.shards or []
    ] or ["  <none>"]
    lines.append("Spec:")
    lines += ["  " + line for line in yaml.safe_dump(w.spec, sort_keys=False).splitlines()]
    lines.append("Timeline:")
    lines += [f"  {e.at}  {e.level:<8} {e.source:<10} {e.title} {e.message}".rstrip() for e in entries] or ["  <none>"]
    out.write("\n".join(lines) + "\n")
