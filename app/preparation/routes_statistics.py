"""Statistics per module: throughput, days per state and station, stock days, sales per
salesperson."""

from datetime import date

import click
from flask import abort, render_template
from flask_babel import format_date, format_decimal, format_percent
from flask_babel import gettext as _
from sqlalchemy import select

from app.auth.viewer import viewer
from app.core.models import Instance
from app.core.roles import ROLE_STATISTICS
from app.extensions import db
from app.preparation import bp
from app.preparation import statistics_totals as totals
from app.preparation import totals as kept_totals
from app.preparation.recon import currencies
from app.preparation.services import recount


def _month_label(day) -> str:
    """Spec 02 section 4: month labels are short upper-case month names."""
    return format_date(day, "LLL").upper().rstrip(".")


def _week_label(day) -> str:
    """Spec 02 section 4: week labels are prefixed with a 'week' text."""
    return _("week %(number)s", number=day.isocalendar()[1])


def _bucket_label(low: int, high: int | None) -> str:
    if high is None:
        return _("over %(days)s days", days=low - 1)
    return _("%(low)s–%(high)s days", low=low, high=high)


def _chart(kind: str, label: str, labels: list, datasets: list, unit: str = "") -> dict:
    return {"type": kind, "label": label, "labels": labels, "datasets": datasets, "unit": unit}


@bp.get("/<any(begcare, newcare):module>/statistics")
def module_statistics(module: str):
    """Throughput, days per state and station and stock days for the selected divisions."""
    v = viewer()
    if module not in v.modules:
        abort(404)
    if not v.has(ROLE_STATISTICS):
        abort(403)
    found = totals.figures(v.instance, module, v.selected_division_ids)
    flow, states, stations, stock = found.flow, found.states, found.stations, found.stock
    sellers = found.salespeople
    nobody = _("No salesperson")

    entered, sold = _("Entered the flow"), _("Sold")
    days, minutes = _("days"), _("min")
    charts = {
        "months": _chart(
            "bar", _("Vehicles entering the flow and sold per month"),
            [_month_label(m) for m in flow.months],
            [{"label": entered, "data": flow.entered_month}, {"label": sold, "data": flow.sold_month}],
        ),
        "weeks": _chart(
            "line", _("Vehicles entering the flow and sold per week"),
            [_week_label(w) for w in flow.weeks],
            [{"label": entered, "data": flow.entered_week}, {"label": sold, "data": flow.sold_week}],
        ),
        "states": _chart(
            "bar", _("Average days per state"), [s.title for s in states],
            [{"label": _("Average days"), "data": [s.average_days or 0 for s in states]}], days,
        ),
        "stations": _chart(
            "bar", _("Average minutes per station against the target"), [s.name for s in stations],
            [
                {"label": _("Average minutes"), "data": [s.average_minutes or 0 for s in stations]},
                {"label": _("Target"), "data": [s.target_minutes for s in stations], "type": "line", "dashed": True},
            ],
            minutes,
        ),
        "stock": _chart(
            "bar", _("Vehicles in stock by stock days"),
            [_bucket_label(low, high) for low, high in stock.buckets],
            [{"label": _("Vehicles"), "data": stock.counts}],
        ),
        "salespeople": _chart(
            "bar", _("Vehicles sold per salesperson"), [r.name or nobody for r in sellers],
            [{"label": _("Sold"), "data": [r.sold for r in sellers]}],
        ),
    }  # fmt: skip
    sold = sum(r.sold for r in sellers)
    recon = totals.recon_figures(module, v.selected_division_ids)
    charts |= _recon_charts(recon)
    return render_template(
        "preparation/statistics/index.html",
        module=module, flow=flow, states=states, stations=stations, stock=stock, charts=charts,
        month_label=lambda d: format_date(d, "LLLL yyyy"),
        week_label=lambda d: _("Week %(number)s · %(date)s", number=d.isocalendar()[1], date=format_date(d, "d MMM")),
        bucket_label=_bucket_label, number=lambda n: "–" if n is None else format_decimal(n),
        salespeople=sellers, percent=lambda n: format_percent(n / sold if sold else 0),
        division_label=v.selected_division_label, recon=recon,
        recon_currency=" / ".join(sorted(set(currencies(v.selected_division_ids).values()))),
        recon_month_label=lambda iso: format_date(date.fromisoformat(iso), "LLLL yyyy"),
    )  # fmt: skip


def _recon_charts(recon) -> dict:
    """Average actual cost and average overrun per vehicle (by month, model) or task (station)."""
    cost, overrun = _("Average actual cost"), _("Average overrun")

    def pair(rows) -> list:
        return [
            {"label": cost, "data": [float(r.average_cost) for r in rows]},
            {"label": overrun, "data": [float(r.average_overrun) for r in rows], "type": "line"},
        ]

    return {
        "recon_months": _chart(
            "bar", _("Average reconditioning cost per vehicle by month"),
            [_month_label(date.fromisoformat(r.label)) for r in recon.month_rows],
            pair(recon.month_rows),
        ),
        "recon_models": _chart(
            "bar", _("Average reconditioning cost per vehicle by brand and model"),
            [r.label for r in recon.models], pair(recon.models),
        ),
        "recon_stations": _chart(
            "bar", _("Average reconditioning cost per task by station"),
            [r.label for r in recon.stations], pair(recon.stations),
        ),
    }  # fmt: skip


@bp.cli.command("recount")
def recount_command() -> None:
    """Count the menus' vehicles per state and the statistics' monthly totals afresh from the
    rows: after rows were written past the app (a COPY, a restore, SQL by hand)."""
    for instance_id in db.session.scalars(select(Instance.id).order_by(Instance.id)):
        click.echo(f"instance {instance_id}: {recount(instance_id)} counters")
    kept_totals.rebuild(db.session.connection())
    db.session.commit()
    click.echo("statistics' monthly totals rebuilt")
