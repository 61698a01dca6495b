"""The module menu's "Module administration" link. The module's admin screens are
app/admin/preparation.py."""

from flask import abort, redirect

from app.auth.viewer import viewer
from app.core import roles as R
from app.preparation import bp


@bp.get("/<any(begcare, newcare):module>/admin")
def module_admin(module: str):
    """The module menu's "Module administration": the module's section of the admin area."""
    v = viewer()
    if module not in v.modules:
        abort(404)
    if not (v.has(R.ROLE_ADMIN) or v.is_division_admin):
        abort(403)
    return redirect(f"/admin/{module}")
