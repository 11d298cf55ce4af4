"""Create, list, rotate and revoke a project's robot accounts (owners and platform admins). Every change is
audited; a revocation or rotation closes the robot's open shells and log streams at once (``access_changed``)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.live_access import access_changed
from accounts.models import EXEC, READ, ROBOT_GRANTS, WRITE, ApiToken
from base import audit
from base.errors import Conflict, Invalid, NotFound
from projects.access import require_active, require_role
from projects.models import Membership, Project, ProjectRole
from robots.models import Robot, username_of

NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
MAX_ROBOTS_PER_PROJECT = 20


def max_robot_days() -> int:
    return int(settings.ROBOT_TOKEN_MAX_DAYS)


def list_robots(project: Project, *, actor: Any) -> list[Robot]:
    """The project's robots, revoked ones included (owners and platform admins)."""
    require_role(project, actor)
    return list(project.robots.all())


def robot_token(robot: Robot) -> ApiToken | None:
    """The robot's newest token (active or not): its expiry and last use are what the page shows."""
    return ApiToken.objects.filter(user_id=robot.user_id).order_by("-created_at").first()


def find_robot(project: Project, name: str, *, actor: Any) -> Robot:
    require_role(project, actor)
    robot = project.robots.filter(name=name).first()
    if robot is None:
        raise NotFound(f"{project.name} has no robot account {name!r}.")
    return robot


def _checked(name: str, grants: list[str], days: int | None) -> tuple[str, list[str], int]:
    name = (name or "").strip()
    if not NAME.match(name):
        raise Invalid.on(
            "name", "Name the robot with 1 to 40 lowercase letters, digits and '-', starting with a letter."
        )
    unknown = [g for g in grants if g not in ROBOT_GRANTS]
    if unknown or not grants:
        raise Invalid.on("scopes", f"Scopes must be one or more of {', '.join(ROBOT_GRANTS)}.")
    days = max_robot_days() if days is None else days
    if not 1 <= days <= max_robot_days():
        raise Invalid.on("days", f"Expiry must be between 1 and {max_robot_days()} days.")
    return name, sorted(set(grants), key=ROBOT_GRANTS.index), days


def _new_token(robot: Robot, days: int) -> tuple[ApiToken, str]:
    raw, key_id, digest = ApiToken.generate()
    grants = robot.grant_list
    token = ApiToken.objects.create(
        user_id=robot.user_id,
        name=f"robot-{key_id}",
        key_id=key_id,
        digest=digest,
        expires_at=timezone.now() + timedelta(days=days),
        scope=WRITE if WRITE in grants or EXEC in grants else READ,  # a shell needs a write-scoped token
        project=robot.project.name,
        grants=robot.grants,
    )
    return token, raw


@transaction.atomic
def create_robot(
    project: Project, *, name: str, scopes: list[str], days: int | None, actor: Any
) -> tuple[Robot, ApiToken, str]:
    """The robot, its token and the token's secret (shown once, never stored)."""
    require_role(project, actor)
    require_active(project)
    name, grants, days = _checked(name, scopes, days)
    if project.robots.filter(name=name).exists():
        raise Conflict.on("name", f"{project.name} already has a robot account named {name!r}.")
    if project.robots.filter(revoked_at__isnull=True).count() >= MAX_ROBOTS_PER_PROJECT:
        raise Conflict.on("name", f"{project.name} has {MAX_ROBOTS_PER_PROJECT} robot accounts; revoke one first.")
    username = username_of(name, project.name)
    if get_user_model().objects.filter(username=username).exists():
        raise Conflict.on("name", f"The username {username!r} is taken.")
    user = get_user_model().objects.create_user(username=username, password=None)
    role = ProjectRole.DEVELOPER if WRITE in grants or EXEC in grants else ProjectRole.VIEWER
    Membership.objects.create(project=project, user=user, role=role)
    robot = Robot.objects.create(
        project=project, name=name, user=user, grants=",".join(grants), created_by=actor.get_username()
    )
    token, raw = _new_token(robot, days)
    audit.record(
        "robot.create",
        actor=actor,
        target_kind="Robot",
        target_name=name,
        project=project.name,
        after={"scopes": grants, "expires_at": token.expires_at, "token": token.key_id},
    )
    return robot, token, raw


@transaction.atomic
def rotate_robot(project: Project, name: str, *, days: int | None, actor: Any) -> tuple[Robot, ApiToken, str]:
    """A new token for the robot; the old one dies at once (open sockets included)."""
    robot = find_robot(project, name, actor=actor)
    require_active(project)
    if robot.revoked_at is not None:
        raise Conflict(f"Robot account {name!r} was revoked: create a new one.")
    _, _, days = _checked(name, robot.grant_list, days)
    now = timezone.now()
    ApiToken.objects.active().filter(user_id=robot.user_id).update(revoked_at=now)
    token, raw = _new_token(robot, days)
    audit.record(
        "robot.rotate",
        actor=actor,
        target_kind="Robot",
        target_name=name,
        project=project.name,
        after={"expires_at": token.expires_at, "token": token.key_id},
    )
    access_changed([robot.user_id], reason="robot token rotated", project=project.name)
    return robot, token, raw


@transaction.atomic
def revoke_robot(project: Project, name: str, *, actor: Any) -> Robot:
    """Revoke the robot for good: its token, its membership and its portal user; revoking twice changes nothing."""
    robot = find_robot(project, name, actor=actor)
    if robot.revoked_at is not None:
        return robot
    now = timezone.now()
    robot.revoked_at = now
    robot.save(update_fields=["revoked_at"])
    ApiToken.objects.active().filter(user_id=robot.user_id).update(revoked_at=now)
    Membership.objects.filter(project=project, user_id=robot.user_id).delete()
    get_user_model().objects.filter(pk=robot.user_id).update(is_active=False)
    audit.record("robot.revoke", actor=actor, target_kind="Robot", target_name=name, project=project.name)
    access_changed([robot.user_id], reason="robot revoked", project=project.name)
    return robot
