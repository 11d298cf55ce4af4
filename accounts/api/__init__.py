"""The accounts API: ``/api/v1/me/`` and personal tokens (``views``, ``serializers``, ``urls``)."""
