"""The suite's password hasher: Django's PBKDF2 at a thousand rounds instead of a million.

Nearly every database test creates a user with a password (the ``user`` and ``admin_user`` fixtures), and at
Django's default a hash costs about half a second of CPU on this 2-core machine: most of some files' time. The
algorithm name and the encoding are Django's own (``pbkdf2_sha256$1000$salt$hash``), so a portal process started
by a test with the shipped settings verifies these passwords too (and rehashes them at the full count on a
successful sign-in); the shipped settings are untouched (``test_the_shipped_hasher_is_djangos_default``).
"""

from __future__ import annotations

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1_000
