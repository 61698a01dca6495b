"""Acting as another user: who may, the role ceiling while doing so, and the way back."""

from flask import Flask, g, session
from flask_login import current_user, login_user

from app.auth import privileges
from app.auth.models import User
from app.auth.session import acting_ended, load_user
from app.core import audit
from app.core.roles import IS_IMPERSONATOR, global_read

IMPERSONATOR_KEY = "impersonator"


def impersonating() -> bool:
    return IMPERSONATOR_KEY in session


def may_act_as(actor: User, target: User) -> bool:
    """IS_IMPERSONATOR may act as another user of the active instance; a global user admin as
    a user of any instance. Nobody acts as themselves, nor as a user with more reach than their
    own (app.auth.privileges.may_act_as)."""
    if target.id == actor.id or not target.is_active or not actor.has_role(IS_IMPERSONATOR):
        return False
    if not (
        actor.has_role(global_read("USER"))
        or any(i.id == actor.active_instance_id for i in target.instances)
    ):
        return False
    return privileges.may_act_as(actor, target)


def can_impersonate(actor: User, target: User) -> bool:
    """may_act_as, and not from a session that is already acting as someone."""
    return not impersonating() and may_act_as(actor, target)


def start(actor: User, target: User) -> None:
    """Switch the session to `target`, remembering `actor` to return to."""
    audit.record("impersonation_start", user=actor, target_user_id=target.id, target=target.email)
    session[IMPERSONATOR_KEY] = actor.get_id()
    login_user(target)


def stop() -> User | None:
    """Return to the original user; None when the session was not impersonating."""
    original_id = session.pop(IMPERSONATOR_KEY, None)
    original = load_user(original_id) if original_id else None
    if original is None:
        return None
    acting_ended()  # secret links made while acting end with it
    audit.record(
        "impersonation_end",
        user=original,
        target_user_id=current_user.id,
        target=current_user.email,
    )
    login_user(original)
    return original


def init_app(app: Flask) -> None:
    @app.before_request
    def _role_ceiling():
        """While impersonating, the session has no role the impersonator lacks."""
        raw = session.get(IMPERSONATOR_KEY)
        if raw is None:
            return
        impersonator = load_user(raw)
        if impersonator is None:  # the original user's session ended: end this one too
            session.clear()
            return
        g.impersonator = impersonator
        # The acting session holds the intersection of both people's reach in the instance it
        # works in: roles here, modules and divisions in app.auth.viewer.
        reach = privileges.acting_reach(current_user, impersonator, current_user.active_instance_id)
        g.acting_reach = reach
        g.role_ceiling = (reach.roles | reach.platform) - {IS_IMPERSONATOR}
