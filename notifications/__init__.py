"""Notifications: what happened, told once to the people it concerns (in the app, by email); see ``services``."""
