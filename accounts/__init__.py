"""Identity: OIDC sign-in, the dev password sign-in, sign-out, personal API tokens and ``/api/v1/me``."""
