"""A signed-in session as cookies, for clients of a portal process (no login round trip)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore


def session_for(user) -> dict[str, str]:
    """A signed-in session cookie (sessions live in the database, so Redis is not needed to sign in)."""
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return {settings.SESSION_COOKIE_NAME: store.session_key}
