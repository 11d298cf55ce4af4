"""The debugging API (``/api/v1/``, included by ``console.api.urls``): ``pods``, where to debug a pod."""
