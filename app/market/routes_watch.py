"""The buyer's watchlist and saved searches (signed in), and the public switch-off link of a
saved search's e-mails.

Both pages sit behind their main-menu entries (market buyers); a watch names an advert the
viewer's company may open, a search is the user's own: anything else is a 404.
"""

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, StringField

from app.auth.session import safe_next
from app.core.forms import required_input, too_long
from app.core.models import utcnow
from app.core.pages import public_page
from app.extensions import db
from app.market import adverts as svc
from app.market import bid_links, bp, watch
from app.market.filters import FilterForm
from app.market.public_invite import rate_limited_page
from app.market.routes_adverts import _access

ENTRY_WATCHLIST = "market.watchlist"
ENTRY_SEARCHES = "market.saved-searches"


class SavedSearchForm(FilterForm):
    """The market list's filters with a name (and whether new matches are e-mailed)."""

    class Meta:
        csrf = True

    name = StringField(
        _l("Name"),
        filters=[lambda v: " ".join(v.split()) if isinstance(v, str) else v],
        validators=[
            required_input(),
            too_long(watch.NAME_MAX),
        ],
    )
    notify = BooleanField(_l("E-mail me when a new advert matches"), default=True)


# --- the watchlist -----------------------------------------------------------------------------


@bp.post("/market/adverts/<int:advert_id>/watch")
def advert_watch(advert_id: int):
    """Watch (watch=1) or stop watching (watch=0) an advert the company may open."""
    v, group = _access(ENTRY_WATCHLIST)
    advert = svc.find_advert(advert_id, group)
    if advert is None or not watch.may_watch(advert, group):
        abort(404)
    on = request.form.get("watch") == "1"
    if request.form.get("watch") not in ("0", "1"):
        abort(400)
    watch.set_watch(v.user.id, advert, on)
    db.session.commit()
    vehicle = f"{advert.title} {advert.regno}"
    if on:
        flash(_("%(vehicle)s is on your watchlist.", vehicle=vehicle), "success")
    else:
        flash(_("%(vehicle)s is no longer on your watchlist.", vehicle=vehicle), "success")
    back = safe_next(request.form.get("next"))
    return redirect(back or url_for("market.advert_page", advert_id=advert.id))


@bp.get("/market/adverts/watchlist")
def watchlist():
    """The adverts the user watches: their state, highest bid in the company's currency and
    end time."""
    v, group = _access(ENTRY_WATCHLIST)
    rows, gone = watch.watchlist(v.user.id, group)
    open_adverts = [
        r.advert
        for r in rows
        if r.advert.status == "published" and svc.aware(r.advert.ends_at) > utcnow()
    ]
    links = bid_links.links_for(open_adverts, v.user.id, group, "bid")
    html = render_template(
        "market/watchlist.html",
        rows=rows, gone=gone, group=group, own_best=watch.own_best(rows, group),
        links=bid_links.public_paths(open_adverts, links, group.hash, "bid"), now=utcnow(),
        title=_("Watchlist"),
    )  # fmt: skip
    db.session.commit()  # the bid links made for the page
    return html


# --- saved searches ----------------------------------------------------------------------------


@bp.get("/market/saved-searches")
def saved_searches():
    """The user's saved searches: their criteria, e-mail switch, results and removal."""
    v, group = _access(ENTRY_SEARCHES)
    found = [(s, watch.criteria_of(s)) for s in watch.searches(v.user.id)]
    return render_template(
        "market/saved_searches.html", searches=found, group=group, title=_("Saved searches")
    )


@bp.route("/market/saved-searches/new", methods=["GET", "POST"])
def saved_search_new():
    """Save a search: the list's filters (filled from the list's query string) and a name."""
    v, group = _access(ENTRY_SEARCHES)
    if request.method == "GET":
        # Filled from the list's filters, named after them; checked when it is saved.
        form = SavedSearchForm(request.args, currency=group.currency, meta={"csrf": False})
        form.notify.data = True
        filters = FilterForm(request.args, currency=group.currency)
        if not form.name.data and filters.validate() and not filters.criteria().empty:
            form.name.data = filters.criteria().summary(group.currency)[: watch.NAME_MAX]
        return _search_form(form, group)
    form = SavedSearchForm(currency=group.currency)
    if not form.validate():
        return _search_form(form, group, 422)
    if watch.count_searches(v.user.id) >= watch.MAX_SEARCHES:
        flash(
            _("You can keep at most %(count)s saved searches. Delete one first.",
              count=watch.MAX_SEARCHES),
            "warning",
        )  # fmt: skip
        return _search_form(form, group, 422)
    criteria = form.criteria()
    search = watch.create_search(v.user.id, form.name.data, criteria, form.notify.data)
    db.session.commit()
    flash(_("The search “%(name)s” is saved.", name=search.name), "success")
    return redirect(url_for("market.saved_searches"))


def _search_form(form: SavedSearchForm, group, status: int = 200):
    page = render_template(
        "market/saved_search_form.html", form=form, group=group, title=_("New saved search")
    )
    return page, status


def _own_search(search_id: int):
    v, _group = _access(ENTRY_SEARCHES)
    search = watch.find_search(search_id, v.user.id)
    if search is None:
        abort(404)
    return search


@bp.post("/market/saved-searches/<int:search_id>/delete")
def saved_search_delete(search_id: int):
    search = _own_search(search_id)
    name = search.name
    db.session.delete(search)
    db.session.commit()
    flash(_("The search “%(name)s” is deleted.", name=name), "success")
    return redirect(url_for("market.saved_searches"))


@bp.post("/market/saved-searches/<int:search_id>/notify")
def saved_search_notify(search_id: int):
    """Switch the search's e-mails on (notify=1) or off (notify=0)."""
    search = _own_search(search_id)
    if request.form.get("notify") not in ("0", "1"):
        abort(400)
    search.notify = request.form.get("notify") == "1"
    db.session.commit()
    if search.notify:
        flash(
            _("New adverts matching “%(name)s” are e-mailed to you.", name=search.name), "success"
        )
    else:
        flash(_("E-mails for “%(name)s” are switched off.", name=search.name), "success")
    return redirect(url_for("market.saved_searches"))


# --- the e-mail's switch-off link (public) -----------------------------------------------------


@bp.route("/market/saved-search-off/<token>", methods=["GET", "POST"])
@public_page
def saved_search_off(token: str):
    """Switch off one saved search's e-mails from the link in them (a button, so that a mail
    scanner opening the link changes nothing)."""
    limited = rate_limited_page()
    if limited is not None:
        return limited
    search = watch.search_by_token(token)
    if search is None:
        abort(404)
    done = False
    if request.method == "POST":
        search.notify = False
        db.session.commit()
        done = True
    return render_template("market/saved_search_off.html", search=search, done=done, token=token)
