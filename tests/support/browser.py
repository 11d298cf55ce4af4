"""Browser helpers shared by the Playwright tests: a page signed in as a user (a force_login's session cookie), the
console errors it logs, and the text on a terminal's screen."""

from __future__ import annotations

from django.test import Client


def signed_in(page, base: str, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}])


# A function of the terminal's element: the rows of xterm.js's active buffer, joined by newlines.
TERMINAL_SCREEN_TEXT = """el => {
  const buf = el.pinTerminal.term.buffer.active;
  const rows = [];
  for (let i = 0; i < buf.length; i++) rows.push(buf.getLine(i).translateToString(true));
  return rows.join("\\n");
}"""


def console_errors(page) -> list[str]:
    """The page's console errors, collected from now on (the list grows as the page logs them)."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return errors


GENEROUS_MS = 120_000  # a loaded machine: Playwright's default 30 s is not enough for a page and its htmx partials
