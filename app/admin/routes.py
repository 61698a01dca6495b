"""The admin screens' routes: every declared screen, plus the few actions of their own."""

from flask import Blueprint, abort, flash, redirect, session
from flask_babel import gettext as _
from flask_login import current_user

from app.admin import configuration, import_routes, preparation, ranking, reports
from app.admin.api_tokens import API_USERS
from app.admin.crud import SCREENS, register
from app.admin.goals import GOALS
from app.admin.organisation import COUNTRIES, DIVISIONS, GROUPS, INSTANCES, REGIONS
from app.admin.providers import PROVIDERS, register_test
from app.admin.purchase import PURCHASE_SCREENS
from app.admin.quicktest import QUICKTEST_SCREENS
from app.admin.recon_limits import RECON_LIMIT_SCREENS
from app.admin.records import RECORD_SCREENS
from app.admin.rules import INTERACTION_SCREENS, RULE_SCREENS, register_try
from app.admin.settings import SETTING_SCREENS
from app.admin.system_messages import SYSTEM_MESSAGES
from app.admin.users import CORE_USERS, GLOBAL_USERS, invite
from app.admin.webhooks import WEBHOOKS, register_log
from app.admin.wizards import WIZARD_SCREENS
from app.auth import impersonation
from app.auth.viewer import DIVISION_SESSION_KEY, viewer
from app.core import audit
from app.extensions import db

bp = Blueprint("admin", __name__)

CORE_SCREENS = (INSTANCES, COUNTRIES, REGIONS, DIVISIONS, GROUPS, CORE_USERS, GLOBAL_USERS)
for _screen in (
    *CORE_SCREENS,
    API_USERS,
    WEBHOOKS,
    PROVIDERS,
    *RECORD_SCREENS,
    *SETTING_SCREENS,
    *RULE_SCREENS.values(),
    *INTERACTION_SCREENS,
    *ranking.RANKING_SCREENS,
    SYSTEM_MESSAGES,
    GOALS,
    *QUICKTEST_SCREENS,
    *PURCHASE_SCREENS,
    *preparation.PREPARATION_SCREENS,
    *WIZARD_SCREENS,
    *RECON_LIMIT_SCREENS,
):
    register(bp, _screen)
ranking.register_routes(bp)
preparation.register_routes(bp)
register_log(bp)
register_test(bp)
register_try(bp)
import_routes.register(bp)
bp.add_url_rule(configuration.URL, "configuration", configuration.view, methods=["GET", "POST"])
bp.add_url_rule(reports.URL, "reports", reports.view)
bp.add_url_rule(f"{reports.URL}/exports/<int:run_id>", "export_run", reports.show_export)
bp.add_url_rule(
    f"{reports.URL}/exports/<int:run_id>/download", "export_download", reports.download_export
)


def act_as(path: str, row_id: int):
    """Act as a user found on a users screen (IS_IMPERSONATOR; a global user admin finds the
    users of every instance on admin/global/users)."""
    screen = SCREENS[path]
    v = viewer()
    if not screen.may_read(v):
        abort(403)
    target = screen.get(v, row_id)
    actor = current_user._get_current_object()
    if not impersonation.can_impersonate(actor, target):
        abort(404)
    impersonation.start(actor, target)
    db.session.commit()
    return redirect("/")


def reinvite(path: str, row_id: int):
    """Mail a user who has not chosen a password yet a new set-password link."""
    screen = SCREENS[path]
    v = viewer()
    if not screen.may_write(v):
        abort(403)
    target = screen.get(v, row_id)
    if target.password_hash or not target.active:
        abort(404)
    invite(target)
    audit.record(f"admin:{path}:{target.id}:invite", record_id=target.id, name=target.email)
    db.session.commit()
    flash(
        _("An invitation to choose a password was sent to %(email)s.", email=target.email), "info"
    )
    return redirect(screen.url)


for _path in ("core/users", "global/users"):
    bp.add_url_rule(
        f"/admin/{_path}/<int:row_id>/act-as",
        f"{_path.replace('/', '_')}_act_as",
        (lambda p: lambda row_id: act_as(p, row_id))(_path),
        methods=["POST"],
    )
    bp.add_url_rule(
        f"/admin/{_path}/<int:row_id>/invite",
        f"{_path.replace('/', '_')}_invite",
        (lambda p: lambda row_id: reinvite(p, row_id))(_path),
        methods=["POST"],
    )


@bp.post("/admin/global/instances/<int:row_id>/work-in")
def work_in_instance(row_id: int):
    """Make an instance the active one of the signed-in administrator (joining it when a
    global instance administrator is not a member yet)."""
    v = viewer()
    if not INSTANCES.may_write(v):
        abort(403)
    instance = INSTANCES.get(v, row_id)
    user = current_user._get_current_object()
    # A global instance administrator works in it with the grant of the instance they came from.
    user.join(instance, like=user.membership)
    audit.record("instance_change", from_instance=user.active_instance_id, to_instance=instance.id)
    user.active_instance_id = instance.id
    session.pop(DIVISION_SESSION_KEY, None)
    db.session.commit()
    flash(_("You now work in %(name)s.", name=instance.company_name), "success")
    return redirect("/admin")
