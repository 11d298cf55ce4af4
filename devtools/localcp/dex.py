"""dex OIDC provider for tests and dev: TLS on loopback (or on ``host``, an address of this machine that pods
reach too: the serving certificate names it), memory storage, static users and clients.

dex v2.45.1 static passwords carry ``groups`` (``storage.Password.Groups``, returned by the local
password connector), so the password grant and the browser flow both put a ``groups`` claim in the
id_token when the ``groups`` scope is requested.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

import bcrypt
import yaml

from . import binaries as _binaries
from . import procs
from .pki import PKI, ensure_pki


class DexUser(TypedDict, total=False):
    email: str  # required
    username: str
    password: str  # required, plain text (hashed here with bcrypt cost 10)
    groups: list[str]
    user_id: str


class DexClient(TypedDict, total=False):
    id: str  # required
    secret: str  # required
    redirect_uris: list[str]
    name: str


DEFAULT_USERS: list[DexUser] = [
    {
        "email": "admin@example.com",
        "username": "admin",
        "password": "password",
        "groups": ["platform-admins"],
    },
    {"email": "dev@example.com", "username": "dev", "password": "password", "groups": ["developers"]},
]
DEFAULT_CLIENTS: list[DexClient] = [
    {
        "id": "pinconsole",
        "secret": "pinconsole-secret",
        "redirect_uris": ["http://127.0.0.1:8000/oidc/callback/"],
    },
]


class DexServer:
    def __init__(
        self,
        state_dir: Path,
        port: int | None = None,
        users: Sequence[DexUser] | None = None,
        clients: Sequence[DexClient] | None = None,
        *,
        build_missing: bool = True,
        host: str = "127.0.0.1",
    ) -> None:
        self.state_dir = Path(state_dir).expanduser().resolve()
        self.host = host
        self.dir = self.state_dir / "dex"
        self.users = list(users if users is not None else DEFAULT_USERS)
        self.clients = list(clients if clients is not None else DEFAULT_CLIENTS)
        self.build_missing = build_missing
        self.port = port or procs.free_port(self._previous_port())
        self.proc = procs.Proc("dex", self.dir / "run", self.dir / "logs")

    def _previous_port(self) -> int | None:
        try:
            return int((self.dir / "port").read_text())
        except (OSError, ValueError):
            return None

    @property
    def issuer(self) -> str:
        return f"https://{self.host}:{self.port}/dex"

    def _pki(self) -> PKI:
        return ensure_pki(self.state_dir, extra_ips=(self.host,))

    @property
    def ca_file(self) -> Path:
        return self._pki().ca_crt

    @property
    def token_endpoint(self) -> str:
        return f"{self.issuer}/token"

    @property
    def config_path(self) -> Path:
        return self.dir / "dex.yaml"

    @property
    def log_file(self) -> Path:
        return self.proc.log_file

    def config(self) -> dict[str, Any]:
        pki = self._pki()
        static_passwords = []
        for i, u in enumerate(self.users):
            hashed = bcrypt.hashpw(u["password"].encode(), bcrypt.gensalt(rounds=10)).decode()
            static_passwords.append(
                {
                    "email": u["email"],
                    "hash": hashed,
                    "username": u.get("username", u["email"].split("@")[0]),
                    "preferredUsername": u.get("username", u["email"].split("@")[0]),
                    "userID": u.get("user_id", f"user-{i}"),
                    "emailVerified": True,
                    "groups": list(u.get("groups", [])),
                }
            )
        return {
            "issuer": self.issuer,
            "storage": {"type": "memory"},
            "web": {
                "https": f"{self.host}:{self.port}",
                "tlsCert": str(pki.serving_crt),
                "tlsKey": str(pki.serving_key),
            },
            "logger": {"level": "info", "format": "text"},
            "oauth2": {"skipApprovalScreen": True, "passwordConnector": "local", "responseTypes": ["code"]},
            "enablePasswordDB": True,
            "staticPasswords": static_passwords,
            "staticClients": [
                {
                    "id": c["id"],
                    "secret": c["secret"],
                    "name": c.get("name", c["id"]),
                    "redirectURIs": list(c.get("redirect_uris", [])),
                }
                for c in self.clients
            ],
        }

    def running(self) -> bool:
        return self.proc.alive() and procs.probe(f"{self.issuer}/.well-known/openid-configuration", self.ca_file)

    def start(self, timeout: float = 30.0) -> DexServer:
        """Start dex (restarting it so the config always matches users/clients) and wait until ready."""
        bins = _binaries.locate(("dex",), build_missing=self.build_missing)
        self.stop()
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "port").write_text(str(self.port))
        self.config_path.write_text(yaml.safe_dump(self.config(), sort_keys=False))
        self.config_path.chmod(0o600)
        self.proc.start(
            [str(bins.dex), "serve", str(self.config_path)],
            env={"PATH": "/usr/bin:/bin", "HOME": str(self.dir)},
            cwd=self.dir,
        )
        url = f"{self.issuer}/.well-known/openid-configuration"
        procs.wait_until(lambda: procs.probe(url, self.ca_file), timeout, proc=self.proc, what=url)
        return self

    def stop(self) -> None:
        self.proc.stop()

    def __enter__(self) -> DexServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def password_grant(
        self,
        username: str,
        password: str,
        client_id: str | None = None,
        client_secret: str | None = None,
        scope: str = "openid email profile groups",
    ) -> dict[str, Any]:
        """POST grant_type=password to the token endpoint; returns the JSON token response."""
        client = self.clients[0]
        cid, secret = client_id or client["id"], client_secret or client["secret"]
        data = urllib.parse.urlencode(
            {"grant_type": "password", "username": username, "password": password, "scope": scope}
        ).encode()
        req = urllib.request.Request(self.token_endpoint, data=data, method="POST")  # noqa: S310
        basic = base64.b64encode(f"{urllib.parse.quote(cid)}:{urllib.parse.quote(secret)}".encode()).decode()
        req.add_header("Authorization", f"Basic {basic}")
        req.add_header("Content-Type", "application/x-www-form-urlencoded")
        ctx = ssl.create_default_context(cafile=str(self.ca_file))
        with urllib.request.urlopen(req, timeout=10, context=ctx) as resp:  # noqa: S310
            return json.loads(resp.read())


def decode_jwt_claims(token: str) -> dict[str, Any]:
    """Claims of a JWT, without signature verification (tests only)."""
    payload = token.split(".")[1]
    payload += "=" * (-len(payload) % 4)
    return json.loads(base64.urlsafe_b64decode(payload))
