"""``pincompute create|get|delete secret|configmap``: a project's Secrets and ConfigMaps (the configs API). A Secret's
values go up and never come back: ``get secrets`` shows each key as set or unset, the version and who changed it.

    pincompute create secret db -n payments --from-literal password=s3cret --from-file tls.crt=./cert.pem
    pincompute create configmap settings -n payments --from-file ./app.conf
    pincompute get secrets -n payments          (get secret db, get configmaps, -o json)
    pincompute delete secret db -n payments
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.cli_errors import OK
from pinconsole_sdk.cli_output import dump
from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import Client

PLURALS = {
    "secret": "secrets",
    "secrets": "secrets",
    "configmap": "configmaps",
    "configmaps": "configmaps",
    "cm": "configmaps",
}
Handler = Callable[[Client, argparse.Namespace, TextIO], int]


def _project(args: argparse.Namespace) -> str:
    if not args.project:
        raise UsageError("a project is needed: -n PROJECT")
    return str(args.project)


def _path(project: str, plural: str, name: str = "") -> str:
    base = f"projects/{quote(project, safe='')}/{plural}/"
    return f"{base}{quote(name, safe='')}/" if name else base


def _literal(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text.split('=')[0][:40]!r}...: give KEY=VALUE")
    return key, value


def _file(text: str) -> tuple[str, str]:
    """``[KEY=]PATH``: the file's text under KEY (default: the file's name)."""
    key, sep, path = text.partition("=")
    if not sep:
        key, path = Path(text).name, text
    try:
        return key, Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise argparse.ArgumentTypeError(f"{path}: cannot be read as UTF-8 text ({type(exc).__name__})") from None


def add_parsers(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    create = sub.add_parser("create", parents=common, help="create a Secret or ConfigMap in the project")
    create.add_argument("kind", choices=["secret", "configmap"])
    create.add_argument("name")
    create.add_argument("--from-literal", type=_literal, action="append", default=[], metavar="KEY=VALUE")
    create.add_argument("--from-file", type=_file, action="append", default=[], metavar="[KEY=]PATH")


def cmd_create(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    data = dict(args.from_literal)
    for key, text in args.from_file:
        if key in data:
            raise UsageError(f"key {key!r} is given twice")
        data[key] = text
    plural = PLURALS[args.kind]
    body = client.request("POST", _path(_project(args), plural), body={"name": args.name, "data": data})
    out.write(
        f"{args.kind}/{body['name']} created (version {body['version']}, keys: {', '.join(sorted(data)) or '-'})\n"
    )
    return OK


def _get(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    plural, names = PLURALS[_word(args.resources)], _names(args.resources)
    project = _project(args)
    if names:
        items = [client.request("GET", _path(project, plural, name)) for name in names]
    else:
        items = client.request("GET", _path(project, plural))
    if args.output.structured:
        dump(items, args.output, out)
        return OK
    if args.output == "name":
        out.writelines(f"{plural[:-1]}/{item['name']}\n" for item in items)
        return OK
    out.write(f"{'NAME':<40} {'KEYS':<50} {'VERSION':<8} CHANGED BY\n")
    for item in items:
        keys = ", ".join(f"{k['name']}({'set' if k['set'] else 'unset'})" for k in item.get("keys", []))
        if "keys" not in item:
            keys = "(hidden: viewers see names only)"
        out.write(f"{item['name']:<40} {keys:<50} {item.get('version', ''):<8} {item.get('changedBy', '')}\n")
    return OK


def _delete(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    plural, names = PLURALS[_word(args.resource)], _names(args.resource)
    if not names:
        raise UsageError(f"delete {args.resource[0]} NAME...")
    project = _project(args)
    for name in names:
        client.request("DELETE", _path(project, plural, name))
        out.write(f"{plural[:-1]}/{name} deleted\n")
    return OK


def _names(resources: list[str]) -> list[str]:
    _, _, name = resources[0].partition("/")
    return ([name] if name else []) + list(resources[1:])


def _word(resources: list[str]) -> str:
    return resources[0].split("/")[0].lower()


def _ours(resources: list[str] | None) -> bool:
    return bool(resources) and _word(resources or []) in PLURALS


def or_configs(handler: Handler, attribute: str) -> Handler:
    """``get``/``delete`` of workloads, or of Secrets and ConfigMaps when the first resource names one of those."""
    ours = _get if attribute == "resources" else _delete

    def run(client: Client, args: argparse.Namespace, out: TextIO) -> int:
        if _ours(getattr(args, attribute, None)):
            return ours(client, args, out)
        return handler(client, args, out)

    return run


HANDLERS: dict[str, Handler] = {"create": cmd_create}
