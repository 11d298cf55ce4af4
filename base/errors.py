"""The service error taxonomy and its three mappings, each written once.

Services and the core raise ``ServiceError`` subclasses (defined in ``pincompute.errors`` so the
core's own validation belongs to the same family). This module maps them:

- to a Django form: ``add_to_form(form, exc)`` puts each field error beside its field;
- to the API's JSON error body: ``base.api.api_exception_handler`` (DRF) uses ``status``/``code``/``fields``;
- to a websocket close code: ``close_code(exc)``.
"""

from __future__ import annotations

from django import forms

from pincompute.errors import (
    Conflict,
    FieldError,
    Forbidden,
    Invalid,
    NotFound,
    ServiceError,
    Unauthenticated,
    Unavailable,
    Unprocessable,
)

__all__ = [
    "MAX_REPORTED",
    "Conflict",
    "FieldError",
    "Forbidden",
    "Invalid",
    "NotFound",
    "ServiceError",
    "Unauthenticated",
    "Unavailable",
    "Unprocessable",
    "add_to_form",
    "close_code",
]


MAX_REPORTED = 20  # problems one answer (a form, an API error body) lists: enough to fix, never as large as the input


def add_to_form(form: forms.BaseForm, exc: ServiceError, *, aliases: dict[str, str] | None = None) -> None:
    """Show the first ``MAX_REPORTED`` field errors beside their fields (``aliases`` maps service paths to form
    field names), and how many more there are; errors about fields the form does not have, or about the whole
    input, become non-field errors."""
    aliases = aliases or {}
    fields = exc.fields or (FieldError("", exc.message),)
    for error in fields[:MAX_REPORTED]:
        name = aliases.get(error.path, error.path)
        if name in form.fields:
            form.add_error(name, error.message)
        else:
            form.add_error(None, str(error))
    if len(fields) > MAX_REPORTED:
        form.add_error(None, f"{len(fields) - MAX_REPORTED} more problems not listed")


def close_code(exc: ServiceError) -> int:
    """The websocket close code for a refusal (4400 + the HTTP status's last two digits, e.g. 4404)."""
    return exc.close_code
