"""``pincompute robots``: a project's robot accounts (owners), and ``pincompute login``: keep a URL and a token
(a robot's, from a file CI mounts) in the config file the other commands read.

    pincompute robots list -p payments
    pincompute robots create deploy-bot --scopes read,write --days 30 -p payments   prints the token, once
    pincompute robots rotate deploy-bot -p payments                                   a new token; the old one dies
    pincompute robots revoke deploy-bot -p payments
    pincompute login --url https://portal --token-file /run/secrets/pinconsole-token
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from pinconsole_sdk.cli_targets import UsageError
from pinconsole_sdk.client import ENV_URL, MAX_CONFIG_BYTES, Client, check_token, config_paths
from pinconsole_sdk.errors import ConfigError

ACTIONS = ("list", "create", "rotate", "revoke")


def _path(project: str | None, *rest: str) -> str:
    if not project:
        raise UsageError("robots: give the project with -p PROJECT")
    return "/".join(["projects", quote(project, safe=""), "robots", *(quote(r, safe="") for r in rest)]) + "/"


def cmd_robots(client: Client, args: argparse.Namespace, out: TextIO) -> int:
    if args.action != "list" and not args.name:
        raise UsageError(f"robots {args.action}: give the robot's NAME")
    if args.action == "list":
        robots = client.request("GET", _path(args.project))
        _print(robots, args, out)
    elif args.action == "create":
        scopes = [s.strip() for s in (args.scopes or "").split(",") if s.strip()]
        body: dict[str, Any] = {"name": args.name, "scopes": scopes, "days": args.days}
        _secret(client.request("POST", _path(args.project), body=body), args, out)
    elif args.action == "rotate":
        _secret(client.request("POST", _path(args.project, args.name, "rotate"), body={"days": args.days}), args, out)
    else:
        client.request("DELETE", _path(args.project, args.name))
        out.write(f"robot/{args.name} revoked\n")
    return 0


def _print(robots: list[dict[str, Any]], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.format == "json":
        out.write(json.dumps(robots, indent=2) + "\n")
        return
    out.write(f"{'NAME':<24} {'SCOPES':<22} {'STATE':<8} EXPIRES\n")
    for r in robots:
        state = "revoked" if r["revoked_at"] else ("active" if r["active"] else "expired")
        out.write(f"{r['name']:<24} {','.join(r['scopes']):<22} {state:<8} {r['expires_at'] or '-'}\n")


def _secret(robot: dict[str, Any], args: argparse.Namespace, out: TextIO) -> None:
    if args.output.format == "json":
        out.write(json.dumps(robot, indent=2) + "\n")
        return
    out.write(f"robot/{robot['name']} ({robot['username']}) token, shown once; expires {robot['expires_at']}:\n")
    out.write(f"{robot['token']}\n")


def read_token_file(path: str) -> str:
    """The token in ``path`` (surrounding whitespace and one trailing newline ignored)."""
    try:
        with open(path, "rb") as file:
            raw = file.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read the token file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes: not a token file")
    token = raw.decode("utf-8", "replace").strip()
    if not token:
        raise ConfigError(f"the token file {path} is empty")
    check_token(token)
    return token


def cmd_login(args: argparse.Namespace, out: TextIO) -> int:
    """Check the token against the portal, then write the URL and the token to the config file (mode 0600)."""
    if not args.token_file and not args.token:
        raise UsageError("login: give --token-file PATH (or --token)")
    token = read_token_file(args.token_file) if args.token_file else args.token
    url = args.url or os.environ.get(ENV_URL)
    if not url:
        raise UsageError(f"login: give --url (or set ${ENV_URL})")
    with Client(url, token, timeout=args.timeout) as client:
        client.server_version()  # a wrong URL or a dead token fails here, before anything is written
    target = Path(args.config).expanduser() if args.config else config_paths(os.environ)[0]
    target.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"url": url, "token": token}) if target.suffix == ".json" else _toml(url, token)
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(target, 0o600)
    out.write(f"logged in to {url}; the token is saved in {target}\n")
    return 0


def _toml(url: str, token: str) -> str:
    return f"url = {json.dumps(url)}\ntoken = {json.dumps(token)}\n"  # a JSON string is a TOML basic string


def add_parsers(sub: Any, common: list[argparse.ArgumentParser]) -> None:
    robots = sub.add_parser("robots", parents=common, help="a project's robot accounts (owners)")
    robots.add_argument("action", choices=ACTIONS)
    robots.add_argument("name", nargs="?", help="the robot's name (create, rotate, revoke)")
    robots.add_argument("--scopes", help="create: comma-separated read, write, exec, logs")
    robots.add_argument("--days", type=int, help="the token's lifetime in days (default: the portal's maximum)")
    login = sub.add_parser("login", parents=common, help="save the portal's URL and a token in the config file")
    login.add_argument("--token-file", help="a file holding the token (a robot's, mounted by CI)")
    login.add_argument("--config", help="the config file to write (default: $XDG_CONFIG_HOME/pinconsole/config.toml)")


HANDLERS = {"robots": cmd_robots}
