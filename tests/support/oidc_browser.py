"""Signing in as a browser does, with an HTTP client: the portal's "Sign in with SSO" link, the IdP's (dex's) login
form filled in and posted, the redirect back to the portal's callback; then pages and forms with that session.

``browser(origin, upstream, ca_file)`` is the user's browser: the portal's public origin (``https://<host>``) is served
by ``upstream`` over plain HTTP with ``X-Forwarded-Proto: https``, what an ingress in front of the portal's Service
does, and every other URL (the IdP) is fetched over TLS verified with ``ca_file``. Its cookies are a browser's, kept
per origin, so the portal's Secure session cookie goes back to the portal only.
"""

from __future__ import annotations

import ssl
from html.parser import HTMLParser
from pathlib import Path

import httpx


class IngressTransport(httpx.BaseTransport):
    """Requests to the portal's public origin, sent to its Service as an ingress that terminates TLS sends them."""

    def __init__(self, upstream: str) -> None:
        self.upstream = httpx.URL(upstream)
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url.copy_with(scheme=self.upstream.scheme, host=self.upstream.host, port=self.upstream.port)
        headers = httpx.Headers(request.headers)  # its Host stays the public one
        headers["X-Forwarded-Proto"] = "https"
        forwarded = httpx.Request(request.method, url, headers=headers, stream=request.stream,
                                  extensions=request.extensions)  # fmt: skip
        return self.inner.handle_request(forwarded)

    def close(self) -> None:
        self.inner.close()


def browser(origin: str, upstream: str, ca_file: Path) -> httpx.Client:
    tls = ssl.create_default_context(cafile=str(ca_file))
    return httpx.Client(base_url=origin, mounts={origin: IngressTransport(upstream)}, verify=tls,
                        follow_redirects=True, timeout=60)  # fmt: skip


class _Page(HTMLParser):
    """The links, the forms (action and fields) and the inputs by id of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.forms: list[tuple[str, dict[str, str]]] = []
        self.by_id: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {k: v or "" for k, v in attrs}
        if tag == "a" and "href" in attr:
            self.links.append(attr["href"])
        elif tag == "form":
            self.forms.append((attr.get("action", ""), {}))
        elif tag == "input":
            if self.forms and "name" in attr:
                self.forms[-1][1][attr["name"]] = attr.get("value", "")
            if "id" in attr:
                self.by_id[attr["id"]] = attr.get("value", "")


def page(response: httpx.Response) -> _Page:
    parsed = _Page()
    parsed.feed(response.text)
    return parsed


def sign_in_through_dex(client: httpx.Client, login: str, password: str) -> httpx.Response:
    """From the portal's sign-in page to the page the portal lands the user on, through dex's login form; fails
    naming the step and the address where the journey stopped."""
    sign_in = client.get("/login/")
    assert sign_in.status_code == 200, f"the sign-in page: {sign_in.status_code}"
    sso = [href for href in page(sign_in).links if href.startswith("/oidc/authenticate/")]
    assert sso, "the sign-in page has no 'Sign in with SSO' link"
    idp = client.get(sso[0])
    forms = [(action, fields) for action, fields in page(idp).forms if {"login", "password"} <= fields.keys()]
    assert idp.status_code == 200 and forms, f"no login form at {idp.url} ({idp.status_code}): {idp.text[:300]}"
    action, fields = forms[0]
    landed = client.post(idp.url.join(action), data={**fields, "login": login, "password": password})
    signed_in = landed.url.host == client.base_url.host and not landed.url.path.startswith("/login/")
    assert signed_in and landed.status_code == 200, (
        f"the sign-in stopped at {landed.url} ({landed.status_code}): {landed.text[:300]}"
    )
    return landed


def submit(client: httpx.Client, path: str, data: dict[str, str]) -> httpx.Response:
    """The portal's form on ``path`` filled with ``data`` and posted back to ``path`` as a browser posts it (the
    page's CSRF token, the page as Referer); the response after redirects."""
    form = client.get(path)
    assert form.status_code == 200, f"{path}: {form.status_code}"
    csrf = [fields for _, fields in page(form).forms if "csrfmiddlewaretoken" in fields]
    assert csrf, f"{path} has no form with a CSRF token"
    token = csrf[0]["csrfmiddlewaretoken"]
    return client.post(path, data={"csrfmiddlewaretoken": token, **data}, headers={"Referer": str(form.url)})
