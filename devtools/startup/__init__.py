"""The dev command's progress page: a Django app of devtools that only ``manage.py dev`` installs.

``devtools.startup.settings`` is the portal's own settings plus this app, its URL and the banner that says on
every page that the platform is still starting. The page reads the status file that the dev command's
``Progress`` writes (``settings.DEV_PROGRESS_FILE``): the terminal and the page tell one story from one source.
"""
