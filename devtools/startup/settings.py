"""The portal's settings (console.settings) plus the dev command's progress page; only ``manage.py dev`` uses it."""

from console.settings import *  # noqa: F403
from console.settings import INSTALLED_APPS, MIDDLEWARE, VAR_DIR

INSTALLED_APPS = [*INSTALLED_APPS, "devtools.startup"]
MIDDLEWARE = [*MIDDLEWARE, "devtools.startup.banner.StartingBanner"]
ROOT_URLCONF = "devtools.startup.urls"
DEV_PROGRESS_FILE = VAR_DIR / "dev-progress.json"  # written by the dev command's Progress, read by the page
