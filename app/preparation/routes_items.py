"""Items: add, edit, move and archive. The state lists and the overview are
app.preparation.routes_overview."""

from datetime import date

from flask import (
    abort,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from sqlalchemy import select
from wtforms import DecimalField, IntegerField, SelectField, StringField
from wtforms.validators import InputRequired, NumberRange, Optional
from wtforms.widgets import TextInput

from app.auth.viewer import viewer
from app.core import roles as R
from app.core.forms import CODE_INPUT, regno_field, required_input, text_field, too_long
from app.core.localized import for_reader
from app.core.numbers import coerce_id, coerce_int, is_int, parse_int, request_int
from app.extensions import db
from app.preparation import bp, locations, salespeople, wizards
from app.preparation import items as svc
from app.preparation.manage import item_or_404
from app.preparation.models import (
    PreparationItem,
    StationPackage,
)
from app.preparation.routes_manage import act_then_back, back_path
from app.preparation.states import BY_ID, STATES
from app.providers import services as providers

PER_PAGE = 25
MODULE_RULE = "<any(begcare, newcare):module>"
SEGMENTS = ", ".join(s.segment for s in STATES)
URL_SAFE = "!$'()*,/:;?@"  # what Werkzeug leaves unquoted in query strings (url_for)


def _module(module: str) -> str:
    """The module of the route, if the user has it (else 404)."""
    if module not in viewer().modules:
        abort(404)
    return module


def _visible_ids() -> list[int]:
    return [d.id for d in viewer().visible_divisions]


def _visible_names() -> dict[int, str]:
    return {d.id: d.name for d in viewer().visible_divisions}


# --- add and edit ------------------------------------------------------------------------------


class _Loose:
    """Accept numbers the way dealers type them: spaces as thousands separators, comma decimals."""

    def process_formdata(self, valuelist):
        if valuelist:
            valuelist = [
                v.replace("\u00a0", "").replace(" ", "").replace(",", ".") for v in valuelist
            ]
        super().process_formdata(valuelist)


class LooseIntegerField(_Loose, IntegerField):
    widget = TextInput()  # type=number would refuse "12 500"

    def process_formdata(self, valuelist):
        if valuelist:
            text = valuelist[0].replace("\u00a0", "").replace(" ", "")
            if text and not is_int(text):  # the strict rule (app/core/numbers.py)
                self.data = None
                raise ValueError(_("Enter a whole number."))
        super().process_formdata(valuelist)


class LooseDecimalField(_Loose, DecimalField):
    widget = TextInput()

    def process_formdata(self, valuelist):
        super().process_formdata(valuelist)
        if self.data is not None and not self.data.is_finite():  # NaN would break comparisons
            self.data = None
            raise ValueError(self.gettext("Not a valid decimal value."))


class ItemForm(FlaskForm):
    division_id = SelectField(_l("Division"), coerce=coerce_int, validators=[InputRequired()])
    regno = regno_field()
    vin = text_field(_l("VIN"), 24, **CODE_INPUT)
    brand = StringField(_l("Brand"), validators=[required_input(), too_long(60)])
    model = StringField(_l("Model"), validators=[required_input(), too_long(80)])
    model_series = StringField(_l("Model series"), validators=[Optional(), too_long(80)])
    model_year = LooseIntegerField(
        _l("Model year"),
        validators=[Optional()],
        render_kw={"inputmode": "numeric"},
    )
    fuel_type = SelectField(_l("Fuel type"), validators=[Optional()])
    color = StringField(_l("Colour"), validators=[Optional(), too_long(40)])
    mileage = LooseIntegerField(
        _l("Mileage"),
        validators=[Optional(), NumberRange(0, 9_999_999)],
        render_kw={"inputmode": "numeric"},
    )
    purchase_price = LooseDecimalField(
        _l("Purchase price"),
        places=2,
        validators=[Optional(), NumberRange(0, 9_999_999_999)],
        render_kw={"inputmode": "decimal"},
    )
    sales_price = LooseDecimalField(
        _l("Sales price"),
        places=2,
        validators=[Optional(), NumberRange(0, 9_999_999_999)],
        render_kw={"inputmode": "decimal"},
    )
    package_id = SelectField(_l("Station package"), coerce=coerce_id, validators=[Optional()])
    parking_location_id = locations.select_field("parking")
    key_location_id = locations.select_field("key")
    delivery_location_id = locations.select_field("delivery")

    def setup(self, module: str, new: bool) -> None:
        """Choices: the visible divisions, the fuel types and the module's packages."""
        self.division_id.choices = [(d.id, d.name) for d in viewer().visible_divisions]
        self.fuel_type.choices = [("", _("Not given"))] + [
            (k, str(v)) for k, v in svc.FUEL_TYPES.items()
        ]
        packages = db.session.execute(
            select(StationPackage.id, StationPackage.name, StationPackage.name_texts)
            .where(StationPackage.module == module)
            .order_by(StationPackage.id)
        ).all()
        self.package_id.choices = [("", _("No package"))] + [
            (str(i), for_reader(texts, n)) for i, n, texts in packages
        ]
        if new and self.package_id.data is None and packages:
            self.package_id.data = packages[0][0]  # a new vehicle usually gets a package

    def validate_model_year(self, field) -> None:
        # This year's, not the year the worker started: the range moves on at New Year.
        NumberRange(1900, date.today().year + 2)(self, field)

    def data_object(self) -> svc.ItemData:
        return svc.ItemData(
            division_id=self.division_id.data,
            regno=self.regno.data or "",
            brand=self.brand.data or "",
            model=self.model.data or "",
            vin=self.vin.data or None,
            model_series=self.model_series.data or None,
            model_year=self.model_year.data,
            fuel_type=self.fuel_type.data or None,
            color=self.color.data or None,
            mileage=self.mileage.data,
            purchase_price=self.purchase_price.data,
            sales_price=self.sales_price.data,
            package_id=int(self.package_id.data) if self.package_id.data else None,  # checked
        )


@bp.route(f"/{MODULE_RULE}/manage/vehicle", methods=["GET", "POST"])
def manage_vehicle(module: str):
    """Add a vehicle (action=add) or edit one (action=edit&id=...)."""
    _module(module)
    action = request.args.get("action", "add")
    if action not in ("add", "edit"):
        abort(404)
    if not viewer().has_prefix(R.add_vehicle(module)):
        abort(403)
    item = None
    if action == "edit":
        raw_id = request.args.get("id", "")
        if not is_int(raw_id):
            abort(404)
        item = item_or_404(module, int(raw_id))
    form = ItemForm(obj=item) if item is not None else ItemForm()
    form.setup(module, new=item is None)
    locations.prepare_form(form, module, _visible_names(), item)
    if item is not None and request.method == "GET":
        form.package_id.data = item.package_id or None
    wizard = wizards.DEFAULT if item else _add_wizard(module, form)
    wizards.apply(wizard, form, fill=request.method == "GET")
    status, fetched = 200, None
    if request.method == "POST" and "fetch" in request.form:
        fetched = _fetch_into(form)  # nothing saved: the form comes back filled
    elif request.method == "POST":
        valid = form.validate()
        valid = not wizards.missing(wizard, form) and valid
        data = form.data_object()
        try:
            if not valid:
                # The item rules run even when a field is malformed: every message at once.
                svc.validate(data, _visible_ids(), module, exclude_id=item.id if item else None)
            elif item is None:
                item = svc.create_item(module, data, viewer().user, _visible_ids())
                locations.save_form(item, form, viewer().user)
                flash(_("%(vehicle)s was added.", vehicle=_label(item)), "success")
            else:
                svc.update_item(item, data, viewer().user, _visible_ids())
                locations.save_form(item, form, viewer().user)
                flash(_("%(vehicle)s was saved.", vehicle=_label(item)), "success")
        except svc.ItemError as exc:
            db.session.rollback()
            for name, text in exc.errors.items():
                if not getattr(form, name).errors:
                    getattr(form, name).errors = [text]
        else:
            if valid:
                db.session.commit()
                return redirect(svc.manage_path(item))
        status = 422
    cancel = (
        svc.manage_path(item)
        if item
        else url_for("preparation.state_list", module=module, segment="incoming")
    )
    html = render_template(
        "preparation/items/form.html",
        form=form, module=module, item=item, action=action, cancel_url=cancel, fetched=fetched,
        can_fetch=providers.active("vehicle") is not None, wizard=wizard,
    )  # fmt: skip
    return html, status


def _fetch_into(form: ItemForm) -> tuple[str, str]:
    """Fill brand, model, model year, fuel and colour from the vehicle data provider, keeping
    everything else typed: (alert category, message)."""
    sample = {"regno": form.regno.data, "vin": form.vin.data}
    try:
        answer = providers.look_up("vehicle", sample)
    except providers.ProviderError as exc:
        return "danger", str(exc)
    values, missing = dict(answer.values), list(answer.problems)
    if "fuel_type" in values:
        fuel = svc.fuel_key(values.pop("fuel_type"))
        if fuel is None:
            missing.append(str(providers.FIELDS["vehicle"]["fuel_type"]))
        else:
            values["fuel_type"] = fuel
    for name, value in values.items():
        field = getattr(form, name)
        field.data, field.raw_data = value, [str(value)]
    text = _("Filled from %(provider)s.", provider=answer.provider)
    if missing:
        text += " " + _("Not in its answer: %(fields)s.", fields=", ".join(missing))
    return ("warning" if missing else "success"), text


def _add_wizard(module: str, form: ItemForm) -> wizards.Wizard:
    """The wizard of the division the vehicle is added to: the one sent, else (a new form) the
    first the division selector stands for, which the form then offers first."""
    visible = _visible_ids()
    division = form.division_id.data if form.division_id.data in visible else None
    if division is None and request.method == "GET" and visible:
        division = form.division_id.data = (viewer().selected_division_ids or visible)[0]
    return wizards.active_wizard(module, division)


def _label(item: PreparationItem) -> str:
    return f"{item.full_model_name} {item.regno}"


# --- moving between states --------------------------------------------------------------------


@bp.post(f"/{MODULE_RULE}/items/<int:item_id>/move")
def move(module: str, item_id: int):
    """Move an item along one of its state buttons (archive is the move to state 9)."""
    item = item_or_404(module, item_id)
    to_state = parse_int(request.form.get("to_state", ""), "to_state")
    seller_id = request_int("salesperson_id", None, low=1, form=True)
    from_state = request_int("from_state", None, form=True)  # the state the page showed

    def act() -> None:
        salespeople.for_sale(item, to_state, seller_id)
        svc.move_by_button(item, to_state, viewer().user, from_state)
        if seller_id is not None and to_state in salespeople.SOLD_STATES:
            salespeople.choose(item, seller_id, viewer().user)

    return act_then_back(
        back_path(item),
        act,
        (svc.MoveRefused, salespeople.SalespersonRefused),
        lambda _r: _(
            "%(vehicle)s moved to %(state)s.", vehicle=_label(item), state=BY_ID[to_state].title
        ),
    )
