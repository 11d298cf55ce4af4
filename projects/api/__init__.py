"""The Projects API: ``/api/v1/projects/`` and ``/api/v1/quota-requests/``, thin views over the same
service functions as the pages (``projects.services``)."""
