"""Link (or unlink) an identity-provider account to an existing portal user: the explicit admin action that sign-in
never takes on its own (an email match links nothing)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from accounts import identity
from base.errors import ServiceError


class Command(BaseCommand):
    help = "Link an OIDC identity (issuer + sub) to an existing user, or --unlink it. Audited."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--issuer", required=True, help="The provider's issuer URL (the ID token's iss)")
        parser.add_argument("--subject", required=True, help="The account's sub claim at that issuer")
        parser.add_argument("--user", help="The portal username to sign in as")
        parser.add_argument("--unlink", action="store_true", help="Remove the link instead")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            if opts["unlink"]:
                identity.unlink(issuer=opts["issuer"], subject=opts["subject"])
                self.stdout.write(f"Unlinked {opts['subject']} @ {opts['issuer']}")
                return
            if not opts["user"]:
                raise CommandError("--user is required to link")
            identity.link(username=opts["user"], issuer=opts["issuer"], subject=opts["subject"])
        except ServiceError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Linked {opts['subject']} @ {opts['issuer']} to {opts['user']}")
