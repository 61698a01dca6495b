"""The approval limit of reconditioning estimates, per module: the whole instance's or one
division's (app.core.division_settings). A task whose estimate is above the limit of its
vehicle's division starts only once a manager approves it (app/preparation/recon.py)."""

from flask_babel import format_decimal
from flask_babel import lazy_gettext as _l

from app.admin.crud import Column, FormRefused, Screen
from app.admin.preparation import MODULES, OWNER, module_screen
from app.extensions import db
from app.preparation.admin_forms import ReconLimitForm
from app.preparation.recon_models import ReconLimit


def _save(module: str):
    def save(row: ReconLimit, form, v) -> None:
        taken = db.session.scalar(
            db.select(ReconLimit.id).where(
                ReconLimit.module == module,
                ReconLimit.division_id.is_(None)
                if form.division_id.data is None
                else ReconLimit.division_id == form.division_id.data,
                ReconLimit.id != (row.id or 0),
            )
        )
        if taken:
            raise FormRefused({"division_id": _l("This division has a limit already.")})
        row.module, row.division_id, row.amount = module, form.division_id.data, form.amount.data

    return save


def recon_limits(module: str) -> Screen:
    return module_screen(
        module,
        "recon-limits",
        ReconLimit,
        noun=_l("approval limit"),
        form=ReconLimitForm,
        columns=(
            OWNER,
            Column(_l("Approval limit"), lambda r: format_decimal(r.amount, "#,##0"), "num"),
        ),
        intro=_l(
            "A task whose reconditioning estimate is above its division's limit starts only once a manager approves it. A division without a limit of its own follows the whole instance's."
        ),
        order_by=(ReconLimit.division_id, ReconLimit.id),
        save=_save(module),
        empty=_l("No approval limits: no estimate needs approval."),
    )


RECON_LIMIT_SCREENS = tuple(recon_limits(m) for m in MODULES)
