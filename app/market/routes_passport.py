"""The seller's vehicle passport of an advert (issue 33): choosing what bidders see of the car's
preparation, and the preview that renders the bidders' own partial. Behind the seller's
my-adverts rule, like the seller's other advert pages (app.market.routes_adverts)."""

from flask import flash, redirect, request, url_for
from flask_babel import gettext as _

from app.extensions import db
from app.market import bp, passport
from app.market.routes_adverts import _own_advert, _render


@bp.route("/market/adverts/<int:advert_id>/passport", methods=["GET", "POST"])
def advert_passport(advert_id: int):
    """The choices (quick tests, work done, costs, service, specification fields) and, below them, the passport as bidders see
    it: the saved choices, or with "Preview" the ticked ones before they are saved."""
    _v, _group, advert = _own_advert(advert_id)
    item = passport.vehicle_of(advert)
    tests = passport.finished_tests(advert, item)
    choices, error, status = passport.Choices.of(advert), None, 200
    if request.method == "POST":
        try:
            choices = passport.Choices.from_form(request.form)
            passport.check(choices, advert, item)
        except passport.PassportError as exc:
            error, status = str(exc), 422
            choices = passport.Choices.ticked(request.form)
        else:
            if request.form.get("action") != "preview":
                passport.save(advert, choices)
                db.session.commit()
                flash(_("The vehicle passport was saved."), "success")
                return redirect(url_for("market.advert_passport", advert_id=advert.id))
    return _render(
        "market/adverts/passport.html",
        status,
        advert=advert, item=item, tests=tests, choices=choices, error=error,
        fields=passport.specification_fields(advert, item),
        passport=None if error else passport.build(advert, choices),
        previewing=request.method == "POST" and not error,
        title=_("Vehicle passport"),
    )  # fmt: skip
