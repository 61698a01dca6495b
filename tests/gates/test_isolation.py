"""Gate 2 (issue 15): the isolation sweep, generated from the route map (app.url_map, which holds
every page and every call of /api/openapi.json).

Every route with an id in its path is called, with every method it takes:

- by an *outsider*: a user of an instance of their own with every tenant right (ROLE_ADMIN, every
  tenant role, every module, all divisions), with the ids of another instance's rows;
- by a *one-division user* of Nordbil (every module, statistics, adding vehicles; only Nordbil
  Göteborg), with the ids of rows in Nordbil's other divisions, for routes whose rows belong to
  a division;

and must answer 404 (403 only where ALLOWED_403 says why). Which row an id names comes from
ROUTES below, or for the admin screens from their declaration (app/admin/crud.py SCREENS). A
route with an id that is neither swept nor in EXEMPT fails the test: a new route cannot forget
its isolation. Public hash links are swept apart: each part of a link swapped for the same part
of another link answers 404, and so does a made-up secret.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from flask import Flask
from sqlalchemy import select
from werkzeug.routing import AnyConverter, PathConverter

from app.auth.models import MODULES, User
from app.auth.privileges import reach_of
from app.auth.tokens import ApiToken, make_token
from app.automation.models import WebhookDelivery, WebhookEndpoint
from app.bookings.models import Booking
from app.core import roles
from app.core.audit import AuditLog
from app.core.models import Division, Instance
from app.core.notifications import Notification
from app.core.scopes import every_scope, scope_for
from app.core.settings import Address, SettingRow
from app.core.tenancy import activate
from app.dashboard.models import DashboardWidget
from app.extensions import db
from app.market.models import (
    Advert,
    AdvertImage,
    MarketInvite,
    MarketLink,
    SavedSearch,
    VehicleRequest,
)
from app.messages.models import SystemMessage
from app.preparation.models import (
    CustomList,
    CustomListItem,
    CustomListSeen,
    DynamicList,
    FileObject,
    ItemComment,
    ItemFile,
    ItemStationTask,
    PreparationItem,
)
from app.preparation.recon_models import ReconApproval, ReconLine
from app.purchase.models import PurchaseAnalysis
from app.quicktest.models import (
    Storage,
    StorageContainer,
    StorageContainerValue,
    StorageGroup,
)
from tests.factories import make_instance, make_user
from tests.helpers import sign_in

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


class NotHere(Exception):
    """The route's rows belong to no division: it has no division sweep."""


@dataclass
class Scope:
    """Which rows the sweep takes its ids from: another instance's (division None), or those of
    `instance_id` outside `division_id` (the one-division user's)."""

    outsider_instance: int
    instance_id: int | None = None
    division_id: int | None = None

    def row(self, model, *where, division=None, join=()):
        """The first row of `model` that the caller must not reach. `division` is the column
        that holds the row's division (through `join`); without it the row is not in the
        division sweep."""
        stmt = select(model).execution_options(all_instances=True)
        for target, on in join:
            stmt = stmt.join(target, on)
        if self.division_id is None:
            # A user (of no one instance) counts as their home instance's.
            owner = model.home_instance_id if model is User else model.instance_id
            stmt = stmt.where(owner != self.outsider_instance)
        else:
            if division is None:
                raise NotHere
            stmt = stmt.where(model.instance_id == self.instance_id, division != self.division_id)
        found = db.session.scalars(stmt.where(*where).order_by(model.id).limit(1)).first()
        assert found is not None, f"no {model.__name__} to sweep with: add one to the demo data"
        return found


# How a row reaches its division, for the division sweep.
def _item(s: Scope, *where):
    return s.row(PreparationItem, *where, division=PreparationItem.division_id)


def _via_item(model):
    def pick(s: Scope, *where):
        join = ((PreparationItem, PreparationItem.id == model.item_id),)
        return s.row(model, *where, division=PreparationItem.division_id, join=join)

    return pick


def _test(s: Scope, *where):
    return s.row(StorageContainer, *where, division=StorageContainer.division_id)


def _analysis(s: Scope):
    return s.row(PurchaseAnalysis, division=PurchaseAnalysis.division_id)


def _value(s: Scope):
    """A quick test's image value (its test in the same instance or division)."""
    join = ((StorageContainer, StorageContainer.id == StorageContainerValue.container_id),)
    return s.row(
        StorageContainerValue,
        StorageContainerValue.file_object_id.is_not(None),
        division=StorageContainer.division_id,
        join=join,
    )


def _link(s: Scope, kind: str):
    return s.row(MarketLink, MarketLink.kind == kind)


def _market_path(link: MarketLink, action: str) -> dict:
    return {
        "action": action,
        "group_hash": link.group.hash,
        "advert_hash": link.advert.hash,
        "user_hash": link.hash,
    }


def _by_id(model, arg: str, *where, division=None) -> Callable[[Scope], dict]:
    def pick(s: Scope) -> dict:
        return {arg: s.row(model, *where, division=division).id}

    return pick


# Every route with an id, but the admin screens of app/admin/crud.py (found from SCREENS):
# endpoint -> (Scope -> its path arguments). Arguments that are not ids (a module, a state
# list, an action) are filled in from the rule (`any(...)` takes its first choice) or NOT_IDS.
ROUTES: dict[str, Callable[[Scope], dict]] = {
    # The module's rules: a saved rule's try; one's own notifications.
    "admin.begcare_rules_try_row": lambda s: {
        "row_id": s.row(SettingRow, SettingRow.kind == "begcare.rule").id
    },
    "admin.newcare_rules_try_row": lambda s: {
        "row_id": s.row(SettingRow, SettingRow.kind == "newcare.rule").id
    },
    "shell.notification_read": _by_id(Notification, "notification_id"),
    # Webhooks: an endpoint's delivery log and "send again".
    "admin.webhook_deliveries": lambda s: {"endpoint_id": s.row(WebhookEndpoint).id},
    "admin.webhook_send_again": lambda s: (
        lambda d: {"endpoint_id": d.endpoint_id, "delivery_id": d.id}
    )(s.row(WebhookDelivery)),
    # Data providers: the Test page.
    "admin.provider_test": lambda s: {
        "row_id": s.row(SettingRow, SettingRow.kind == "provider").id
    },
    # Preparation: items, their comments, files, tasks; custom lists and saved filters.
    "preparation.item_redirect": lambda s: {"item_id": _item(s).id},
    "preparation.item_page": lambda s: {"item_id": _item(s).id},
    "preparation.add_comment": lambda s: {"item_id": _item(s).id},
    "preparation.upload_file": lambda s: {"item_id": _item(s).id},
    "preparation.move": lambda s: {"item_id": _item(s).id},
    "preparation.move_location": lambda s: {"item_id": _item(s).id},
    "preparation.choose_salesperson": lambda s: {"item_id": _item(s).id},
    "preparation.item_tags": lambda s: {"item_id": _item(s).id},
    "preparation.item_specification": lambda s: {"item_id": _item(s).id},
    "preparation.item_last_service": lambda s: {"item_id": _item(s).id},
    "preparation.item_print": lambda s: {"item_id": _item(s).id},
    "preparation.edit_comment": lambda s: (lambda c: {"item_id": c.item_id, "comment_id": c.id})(
        _via_item(ItemComment)(s)
    ),
    "preparation.task_action": lambda s: (lambda t: {"item_id": t.item_id, "task_id": t.id})(
        _via_item(ItemStationTask)(s)
    ),
    "preparation.add_cost": lambda s: (lambda t: {"item_id": t.item_id, "task_id": t.id})(
        _via_item(ItemStationTask)(s)
    ),
    "preparation.remove_cost": lambda s: (
        lambda c: {"item_id": c.item_id, "task_id": c.task_id, "line_id": c.id}
    )(_via_item(ReconLine)(s)),
    "preparation.decide_approval": lambda s: (
        lambda a: {"item_id": a.item_id, "approval_id": a.id}
    )(_via_item(ReconApproval)(s)),
    "preparation_api.item_list_extended": lambda s: {"item_id": _item(s).id},
    "preparation_api.item_file_view": lambda s: {"file_id": _via_item(ItemFile)(s).id},
    "preparation_api.file_object_binary": lambda s: {
        "name": s.row(FileObject, FileObject.id == _via_item(ItemFile)(s).file_object_id).uuid
    },
    "shell.file_download": lambda s: {"file_id": str(_via_item(ItemFile)(s).id)},
    "preparation_api.delete_seen": lambda s: {"seen_id": s.row(CustomListSeen).id},
    "preparation.custom_list": _by_id(CustomList, "list_id"),
    "preparation.delete_custom_list": _by_id(CustomList, "list_id"),
    "preparation.rename_custom_list": _by_id(CustomList, "list_id"),
    "preparation.tag_custom_list": _by_id(CustomList, "list_id"),
    "preparation.add_custom_list_item": _by_id(CustomList, "list_id"),
    "preparation.remove_custom_list_item": lambda s: (
        lambda e: {"list_id": e.custom_list_id, "item_id": e.item_id}
    )(s.row(CustomListItem)),
    "preparation.my_list": lambda s: {"uuid": s.row(DynamicList).uuid},
    "preparation.delete_dynamic_list": lambda s: {"uuid": s.row(DynamicList).uuid},
    "preparation.rename_dynamic_list": lambda s: {"uuid": s.row(DynamicList).uuid},
    # The module admin screens of preparation.
    # Dashboards and goals.
    "dashboard_api.get_widget": _by_id(DashboardWidget, "widget_id"),
    "dashboard_api.update_widget": _by_id(DashboardWidget, "widget_id"),
    "dashboard_api.delete_widget": _by_id(DashboardWidget, "widget_id"),
    "dashboard_api.copy_widget": _by_id(DashboardWidget, "widget_id"),
    # Quick tests and their admin screens.
    "quicktest.show": lambda s: {"test_id": _test(s).id},
    "quicktest.fill": lambda s: {"test_id": _test(s).id},
    "quicktest.finish": lambda s: {"test_id": _test(s).id},
    "quicktest.review": lambda s: {"test_id": _test(s).id},
    "quicktest.print_view": lambda s: {"test_id": _test(s).id},
    "quicktest.staff_image": lambda s: (
        lambda v: {
            "test_id": v.container_id,
            "file_uuid": db.session.get(FileObject, v.file_object_id).uuid,
        }
    )(_value(s)),
    "quicktest_api.storage_container": lambda s: {"test_id": _test(s).id},
    "quicktest_api.add_image": lambda s: {"test_id": _test(s).id},
    "quicktest_api.save_value": lambda s: {"test_id": _test(s).id},
    "quicktest_api.remove_image": lambda s: (
        lambda v: {"test_id": v.container_id, "value_id": v.id}
    )(_value(s)),
    # A storage's groups: crud's screen with a parent (app/admin/quicktest.py), its rows under
    # the storage's page.
    "admin.general_storages_groups_list": _by_id(Storage, "parent_id"),
    "admin.general_storages_groups_new": _by_id(Storage, "parent_id"),
    **{
        f"admin.general_storages_groups_{op}": lambda s: (
            lambda g: {"parent_id": g.storage_id, "row_id": g.id}
        )(s.row(StorageGroup))
        for op in ("edit", "delete", "history")
    },
    # Purchase analyses.
    "purchase.show": lambda s: {"analysis_id": _analysis(s).id},
    "purchase.act": lambda s: {"analysis_id": _analysis(s).id},
    "purchase.get_valuation": lambda s: {"analysis_id": _analysis(s).id},
    "purchase.edit": lambda s: {"analysis_id": _analysis(s).id},
    "purchase.pdf_purchase_analysis": lambda s: {"analysis_id": _analysis(s).id},
    "purchase_api.purchase_analysis_full": lambda s: {"analysis_id": _analysis(s).id},
    # The market, signed in.
    "market.advert_page": _by_id(Advert, "advert_id"),
    "market.advert_edit": _by_id(Advert, "advert_id"),
    "market.advert_passport": _by_id(Advert, "advert_id"),
    "market.send_bid_links": _by_id(Advert, "advert_id"),
    "market.advert_image": lambda s: (lambda i: {"advert_id": i.advert_id, "image_id": i.id})(
        s.row(AdvertImage)
    ),
    "market.vehicle_request_state": _by_id(VehicleRequest, "request_id"),
    "market.advert_watch": _by_id(Advert, "advert_id"),
    "market.reserve_decision": _by_id(Advert, "advert_id"),
    "market.saved_search_delete": _by_id(SavedSearch, "search_id"),
    "market.saved_search_notify": _by_id(SavedSearch, "search_id"),
    "market.accept_invite_page": lambda s: {"invite_hash": s.row(MarketInvite).hash},
    "market.accept_invite_answer": lambda s: {"invite_hash": s.row(MarketInvite).hash},
    # The shell: divisions, instances, users.
    "ranking_api.tier_ranking_division_summary": lambda s: {
        "divisionId": s.row(Division, division=Division.id).id
    },
    "shell_api.change_active_instance": lambda s: {"instance_id": _instance(s)},
    "shell_api.impersonate": lambda s: {
        "user_id": s.row(User, User.email == "seller@demo.test").id
    },
    # System messages: a message for another company's users is not the caller's to mark read.
    "messages_api.message_viewed": lambda s: {"message_id": _company_message(s)},
    # Bookings: a vehicle's, a booking (through its vehicle's division), a calendar's week.
    "bookings.new": lambda s: {"item_id": _item(s).id},
    "bookings.show": lambda s: {"booking_id": _via_item(Booking)(s).id},
    "bookings.cancel": lambda s: {"booking_id": _via_item(Booking)(s).id},
    "bookings.calendar_view": lambda s: {
        "calendar_id": s.row(
            SettingRow, SettingRow.kind == "booking_calendar", division=SettingRow.division_id
        ).id
    },
    # Admin: imports and exports (runs of another instance).
    "admin.import_run": lambda s: {"run_id": _run(s, "ImportRun")},
    "admin.import_progress": lambda s: {"run_id": _run(s, "ImportRun")},
    "admin.import_start": lambda s: {"run_id": _run(s, "ImportRun")},
    "admin.export_run": lambda s: {"run_id": _run(s, "ExportRun")},
    "admin.export_download": lambda s: {"run_id": _run(s, "ExportRun")},
}


def _instance(s: Scope) -> int:
    """Another instance than the caller's (not one of their divisions: no division sweep)."""
    if s.division_id is not None:
        raise NotHere
    return db.session.scalars(select(Instance).where(Instance.id != s.outsider_instance)).first().id


def _company_message(s: Scope) -> int:
    """A system message for another company's users (the demo has an alert and a dialog for
    each company); it belongs to no division."""
    if s.division_id is not None:
        raise NotHere
    found = db.session.scalars(
        select(SystemMessage)
        .where(
            SystemMessage.audience == "instance",
            SystemMessage.audience_instance_id != s.outsider_instance,
        )
        .order_by(SystemMessage.id)
        .limit(1)
    ).first()
    assert found is not None, "no company's system message to sweep with: add one to the demo data"
    return found.id


def _run(s: Scope, name: str) -> int:
    from app.admin import models

    return s.row(getattr(models, name)).id


# Path arguments that name no row: the value the sweep puts there.
NOT_IDS = {
    "segment": "incoming",
    "title": "file.pdf",
    "dashboard": "my",
    "action": "bid",
    "message": "NOT_FOUND",
    "language": "en-GB",
}

# Routes with an id that this sweep does not exercise, and why. Each is covered elsewhere.
EXEMPT = {
    # Public hash links: their secret parts are the whole authorisation; swept below by
    # test_public_links (each part swapped for another link's part, and made-up secrets).
    "market.bid_page": "public hash link (test_public_links)",
    "market.bid_image": "public hash link (test_public_links)",
    "market.invite_page": "public hash link (test_public_links)",
    "market_api.get_instance_invite": "public hash link (test_public_links)",
    "market_api.accept_instance_invite": "public hash link (test_public_links)",
    "market_api.deny_instance_invite": "public hash link (test_public_links)",
    "market_api.market_bid_request": "public hash link (test_public_links)",
    "market_api.market_bid_update": "public hash link (test_public_links)",
    "market_api.market_bid_place": "public hash link (test_public_links)",
    "market_api.market_advert_currencies": "public hash link (test_public_links)",
    "market_api.market_advert_state": "public hash link (test_public_links)",
    "market_api.market_bid_buy_now": "public hash link, found as market_bid_place finds it "
    "(tests/market/test_proxy_soft_close_buy_now.py)",
    "market.saved_search_off": "secret token of one saved search (test_public_links)",
    "market.bidder_unsubscribe": "public hash link (test_public_links)",
    "market_api.market_counter_answer": "public hash link, found as market_bid_place finds it "
    "(tests/market/test_reserve.py)",
    "quicktest.public_view": "public hash link (test_public_links)",
    "quicktest.public_image": "public hash link (test_public_links)",
    "quicktest_api.public_test": "public hash link (test_public_links)",
    "mail.preview": "public hash link (test_public_links)",
    "mail.preview_attachment": "public hash link with the file's number (test_public_links)",
    "events.calendar_feed": "secret token, stored hashed (test_public_links)",
    "auth.reset_password": "secret token, stored hashed (test_public_links)",
    "auth_api.check_reset_token": "secret token, stored hashed (test_public_links)",
    "auth_api.change_password": "secret token, stored hashed (test_public_links)",
    # Rows of no instance: the platform's own settings, seen and changed only with the global
    # roles (ROLE_GLOBAL_*), which look across instances by design (tests/admin/test_rights.py,
    # tests/messages, tests/ranking).
    "admin.global_instances_edit": "global rows (ROLE_GLOBAL_INSTANCES_READ)",
    "admin.global_instances_delete": "global rows (ROLE_GLOBAL_INSTANCES_READ)",
    "admin.global_instances_history": "global rows (ROLE_GLOBAL_INSTANCES_READ)",
    "admin.work_in_instance": "global rows (ROLE_GLOBAL_INSTANCES_READ)",
    "admin.global_users_edit": "users of every instance (ROLE_GLOBAL_USER_READ)",
    "admin.global_users_delete": "users of every instance (ROLE_GLOBAL_USER_READ)",
    "admin.global_users_history": "users of every instance (ROLE_GLOBAL_USER_READ)",
    "admin.global_users_act_as": "users of every instance (ROLE_GLOBAL_USER_READ)",
    "admin.global_users_invite": "users of every instance (ROLE_GLOBAL_USER_READ)",
    "admin.global_properties_edit": "global rows (ROLE_GLOBAL_ENHANCED_PROPERTY_READ)",
    "admin.global_properties_delete": "global rows (ROLE_GLOBAL_ENHANCED_PROPERTY_READ)",
    "admin.global_properties_history": "global rows (ROLE_GLOBAL_ENHANCED_PROPERTY_READ)",
    "admin.global_categories_edit": "global rows (ROLE_GLOBAL_ENHANCED_CATEGORIES_READ)",
    "admin.global_categories_delete": "global rows (ROLE_GLOBAL_ENHANCED_CATEGORIES_READ)",
    "admin.global_categories_history": "global rows (ROLE_GLOBAL_ENHANCED_CATEGORIES_READ)",
    "admin.global_service_schedule_edit": "global rows (ROLE_GLOBAL_SERVICE_SCHEDULE_READ)",
    "admin.global_service_schedule_delete": "global rows (ROLE_GLOBAL_SERVICE_SCHEDULE_READ)",
    "admin.global_service_schedule_history": "global rows (ROLE_GLOBAL_SERVICE_SCHEDULE_READ)",
    "admin.global_service_schedule_checkup_tasks_edit": "global rows",
    "admin.global_service_schedule_checkup_tasks_delete": "global rows",
    "admin.global_service_schedule_checkup_tasks_history": "global rows",
    "admin.global_system_messages_edit": "global rows (ROLE_GLOBAL_SYSTEM_MESSAGES_READ)",
    "admin.global_system_messages_delete": "global rows (ROLE_GLOBAL_SYSTEM_MESSAGES_READ)",
    "admin.global_system_messages_history": "global rows (ROLE_GLOBAL_SYSTEM_MESSAGES_READ)",
    "admin.global_ranking_seasons_edit": "global rows (ROLE_GLOBAL_TIER_RANKING_READ)",
    "admin.global_ranking_seasons_delete": "global rows (ROLE_GLOBAL_TIER_RANKING_READ)",
    "admin.global_ranking_seasons_history": "global rows (ROLE_GLOBAL_TIER_RANKING_READ)",
    "admin.global_ranking_tiers_edit": "global rows (ROLE_GLOBAL_TIER_RANKING_READ)",
    "admin.global_ranking_tiers_delete": "global rows (ROLE_GLOBAL_TIER_RANKING_READ)",
    "admin.global_ranking_tiers_history": "global rows (ROLE_GLOBAL_TIER_RANKING_READ)",
}

# Where a 403 is the answer instead of 404, and why: a guard that refuses the caller whatever the
# id names, before any row is read (so the answer tells nothing about the row).
ALLOWED_403: dict[str, str] = {
    # The outsider's company is not on the market (no market group): the seller's and the
    # invitee's market pages refuse it as a whole. Advert isolation between market companies is
    # tested in tests/market.
    "market.accept_invite_page": "not a market company: refused before the invite is read",
    "market.accept_invite_answer": "not a market company: refused before the invite is read",
    "market.send_bid_links": "not a market seller: refused before the advert is read",
    "market.advert_edit": "not a market seller: refused before the advert is read",
    "market.advert_passport": "not a market seller: refused before the advert is read",
    "market.vehicle_request_state": "not a market company: refused before the request is read",
    "market.advert_watch": "not a market buyer: refused before the advert is read",
    "market.reserve_decision": "not a market seller: refused before the advert is read",
    "market.saved_search_delete": "not a market buyer: refused before the search is read",
    "market.saved_search_notify": "not a market buyer: refused before the search is read",
    # The logs are read-only: their edit and delete answer 403 to everyone, for any id.
    "admin.begcare_logs_edit": "read-only screen",
    "admin.begcare_logs_delete": "read-only screen",
    "admin.newcare_logs_edit": "read-only screen",
    "admin.newcare_logs_delete": "read-only screen",
}


def _not_id(rule, arg: str) -> bool:
    converter = rule._converters.get(arg)
    return isinstance(converter, AnyConverter | PathConverter) or arg in NOT_IDS


def _first_choice(rule, arg: str) -> str:
    """The first value an `any(...)` argument takes."""
    pattern = rule._converters[arg].regex  # (?:a|b|c)
    return pattern.removeprefix("(?:").removesuffix(")").split("|")[0].replace("\\-", "-")


def _screen_routes() -> dict[str, Callable[[Scope], dict]]:
    """The admin screens' routes with a row id, each with the screen's own model and filters."""
    from app.admin.crud import SCREENS  # after the app's own imports (they are circular)

    found = {}
    for screen in SCREENS.values():

        def pick(s: Scope, screen=screen) -> dict:
            return {"row_id": s.row(screen.model, *screen.where).id}

        for op in ("edit", "delete", "history", "preview", "act_as", "invite"):
            found[f"admin.{screen.endpoint}_{op}"] = pick
    return found


def id_routes(app: Flask) -> list:
    """Every rule with an id among its arguments (what the sweep must cover)."""
    return [
        rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static" and any(not _not_id(rule, a) for a in rule.arguments)
    ]


def path_of(app: Flask, rule, ids: dict) -> str:
    values = {}
    for arg in rule.arguments:
        if arg in ids:
            values[arg] = ids[arg]
        elif isinstance(rule._converters.get(arg), AnyConverter):
            values[arg] = _first_choice(rule, arg)
        else:
            values[arg] = NOT_IDS[arg]
    with app.test_request_context():
        from flask import url_for

        return url_for(rule.endpoint, **values)


def call(client, token: str, method: str, path: str):
    headers = {"X-CSRFToken": token}
    if path.startswith("/api/"):
        return client.open(path, method=method, headers=headers, json={})
    data = {"csrf_token": token} if method != "GET" else None
    return client.open(path, method=method, headers=headers, data=data, follow_redirects=True)


def add_missing_rows() -> None:
    """Rows the demo data does not hold, added to Nordbil (in the test's rolled-back
    transaction) so that every route has a row to be swept with; items in Nordbil Solna, outside
    the one-division user's Göteborg."""
    from app.admin import models as admin_models
    from app.admin.crud import SCREENS

    nordbil = db.session.scalars(
        select(Instance).where(Instance.company_name == "Nordbil AB")
    ).one()
    activate(nordbil.id)
    seller = db.session.scalars(select(User).where(User.email == "seller@demo.test")).one()
    item = db.session.scalars(
        select(PreparationItem).join(Division).where(Division.name == "Nordbil Solna").limit(1)
    ).one()
    file = FileObject(name="sweep.pdf", content_type="application/pdf", size=4, data=b"%PDF")
    image = FileObject(name="sweep.png", content_type="image/png", size=4, data=b"\x89PNG")
    listed = db.session.scalars(select(CustomListItem).limit(1)).one()
    advert = db.session.scalars(select(Advert).limit(1)).one()
    db.session.add_all([file, image])
    db.session.flush()
    db.session.add_all(
        [
            ItemComment(item_id=item.id, user_id=seller.id, content="Sweep"),
            ItemFile(item_id=item.id, file_object_id=file.id, title="sweep.pdf"),
            CustomListSeen(
                custom_list_id=listed.custom_list_id, item_id=listed.item_id, user_id=seller.id
            ),
            AdvertImage(advert_id=advert.id, file_object_id=image.id),
            admin_models.ImportRun(user_id=seller.id, filename="sweep.csv", content=b"a"),
            admin_models.ExportRun(
                user_id=seller.id,
                report="items",
                start=date(2026, 1, 1),
                end=date(2026, 1, 31),
                format="csv",
            ),
            admin_models.Address(name="Sweep", division_id=item.division_id),
            ApiToken(name="Sweep", token_hash="0" * 64, token_hint="sweep"),
            WebhookEndpoint(name="Sweep", url="https://hooks.example.test/", events=[]),
            AuditLog(instance_id=nordbil.id, user_id=seller.id, action="sweep"),
            Notification(user_id=seller.id, key="rule", params={}),
        ]
    )
    db.session.flush()
    endpoint = db.session.scalars(select(WebhookEndpoint).where(WebhookEndpoint.name == "Sweep"))
    db.session.add(
        WebhookDelivery(endpoint_id=endpoint.one().id, event="vehicle.added", payload={})
    )
    for screen in SCREENS.values():  # a row for each instance screen that has none yet
        if screen.model is SettingRow:
            kind = screen.where[0].right.value
            if db.session.scalars(select(screen.model).where(*screen.where)).first() is None:
                db.session.add(SettingRow(kind=kind, name=f"Sweep {kind}"))
    db.session.flush()
    activate(None)


def outsider_user() -> User:
    """A user of an instance of their own, holding every tenant right (not the global ones)."""
    instance = make_instance("Outsider AB")
    return make_user(
        instance,
        roles=[
            "ROLE_USER",
            roles.ROLE_ADMIN,
            roles.ROLE_STATISTICS,
            roles.ROLE_CCMARKET_ADMIN,
            roles.ROLE_CCMARKET_STATISTICS,
            roles.add_vehicle("begcare"),
            roles.add_vehicle("newcare"),
            *roles.ALL_TENANT_ROLES,
        ],
        modules=list(MODULES),
        all_divisions=True,
    )


def one_division_user() -> User:
    """A Nordbil user of one division (Göteborg) with every module."""
    nordbil = db.session.scalars(select(Instance).where(Instance.company_name == "Nordbil AB"))
    instance = nordbil.one()
    goteborg = db.session.scalars(
        select(Division)
        .where(Division.name == "Nordbil Göteborg")
        .execution_options(all_instances=True)
    ).one()
    return make_user(
        instance,
        roles=[
            "ROLE_USER",
            roles.ROLE_STATISTICS,
            roles.add_vehicle("begcare"),
            roles.add_vehicle("newcare"),
        ],
        modules=list(MODULES),
        divisions=[goteborg],
    )


def sweep(
    app: Flask, client, user: User, scope: Scope, secret: str | None = None
) -> tuple[list, list, set]:
    """Call every id route as `user` with ids from `scope`; return (leaks, unswept, swept).
    Every path is built before the first call, so that a leaking call (a delete that should
    not have reached its row) cannot hide the routes after it. With an API token's `secret`:
    the /api routes, called with the token and no session cookie."""
    token = sign_in(client, user) if secret is None else None
    routes = {**_screen_routes(), **ROUTES}
    unswept, planned = [], []
    for rule in id_routes(app):
        if rule.endpoint in EXEMPT or (secret is not None and not rule.rule.startswith("/api/")):
            continue
        pick = routes.get(rule.endpoint)
        if pick is None:
            unswept.append(f"{rule.rule} ({rule.endpoint})")
            continue
        try:
            planned.append((rule, path_of(app, rule, pick(scope))))
        except NotHere:
            continue
    leaks, swept = [], set()
    for rule, path in planned:
        for method in sorted(rule.methods & set(METHODS)):
            if secret is None:
                answer = call(client, token, method, path)
            else:
                bearer = {"Authorization": f"Bearer {secret}"}
                answer = client.open(path, method=method, headers=bearer, json={})
            swept.add(rule.endpoint)
            allowed = {404} | ({403} if rule.endpoint in ALLOWED_403 else set())
            if secret is not None and scope_for(rule.endpoint, method) is None:
                allowed = {403}  # no token makes this call, whichever instance its row is in
            if answer.status_code not in allowed:
                leaks.append(f"{method} {path} ({rule.endpoint}): {answer.status_code}")
    return leaks, unswept, swept


def test_every_route_with_an_id_refuses_another_instances_rows(demo_app, demo_client):
    add_missing_rows()
    user = outsider_user()
    scope = Scope(outsider_instance=user.home_instance_id)
    leaks, unswept, swept = sweep(demo_app, demo_client, user, scope)
    assert not unswept, (
        "Routes with an id that the isolation sweep does not cover: add them to ROUTES "
        "(or, with the reason, to EXEMPT) in tests/gates/test_isolation.py:\n" + "\n".join(unswept)
    )
    assert not leaks, "Another instance's rows answered other than 404:\n" + "\n".join(leaks)
    assert len(swept) > 140  # the sweep reached the routes, not an early error


def test_an_api_token_reaches_no_other_instances_rows(demo_app, demo_client):
    """A token of the outsider's instance, with every scope and every right its maker holds,
    calls every /api route with an id of another instance's row: 404 (403 for a call no token
    makes)."""
    add_missing_rows()
    user = outsider_user()
    instance = db.session.get(Instance, user.home_instance_id)
    _token, secret = make_token(
        "Sweep", user, instance, [s for s, _area, _name in every_scope()],
        reach_of(user, instance.id),
    )  # fmt: skip
    scope = Scope(outsider_instance=user.home_instance_id)
    caller = demo_app.test_client(use_cookies=False)
    leaks, _unswept, swept = sweep(demo_app, caller, user, scope, secret=secret)
    assert not leaks, "A token reached another instance's rows:\n" + "\n".join(leaks)
    assert len(swept) > 10


def test_every_route_with_a_division_refuses_rows_of_other_divisions(demo_app, demo_client):
    add_missing_rows()
    user = one_division_user()
    scope = Scope(
        outsider_instance=-1,
        instance_id=user.home_instance_id,
        division_id=user.divisions[0].id,
    )
    leaks, _unswept, swept = sweep(demo_app, demo_client, user, scope)
    assert not leaks, "Rows of a division outside the user's rights answered:\n" + "\n".join(leaks)
    assert len(swept) > 20


def test_exemptions_name_real_routes(demo_app):
    """An exemption or a sweep entry for a route that no longer exists is a stale promise."""
    endpoints = {rule.endpoint for rule in demo_app.url_map.iter_rules()}
    assert set(EXEMPT) <= endpoints, set(EXEMPT) - endpoints
    assert set(ROUTES) <= endpoints, set(ROUTES) - endpoints


def _market_paths(action: str, group: str, advert: str, user: str) -> list[str]:
    return [
        f"/market-bid/{action}/{group}/{advert}/{user}",
        f"/api/_public/market-bid/{action}/{group}/{advert}/{user}",
        f"/api/_public/market-advert/currencies/{group}/{advert}/{user}",
        f"/api/_public/market-advert/state/{group}/{advert}/{user}",
        f"/market-bid-unsubscribe/{group}/{advert}/{user}",
    ]


def test_public_links_answer_404_for_any_swapped_part(demo_app, demo_client):
    """Each part of a public link swapped for the same part of another link, or for a made-up
    secret, answers 404 (the link itself answers 200)."""
    bids = db.session.scalars(
        select(MarketLink)
        .where(MarketLink.kind == "bid")
        .order_by(MarketLink.id)
        .execution_options(all_instances=True)
    ).all()
    first = bids[0]
    other = next(b for b in bids if b.advert_id != first.advert_id and b.group_id != first.group_id)
    parts = ("bid", first.group.hash, first.advert.hash, first.hash)
    swaps = ("allocate", other.group.hash, other.advert.hash, other.hash)
    made_up = "A" * 22
    for path in _market_paths(*parts):
        assert demo_client.get(path).status_code == 200, path
    wrong = []
    for position in range(4):
        # The action is no secret: a bid link used to allocate is a 404 (a made-up action
        # sends the page to sign-in, spec 02), and the currencies call has no action.
        for value in (swaps[position],) if position == 0 else (swaps[position], made_up):
            changed = list(parts)
            changed[position] = value
            paths = _market_paths(*changed)
            for path in paths[:2] if position == 0 else paths:
                if demo_client.get(path).status_code != 404:
                    wrong.append(path)

    invite = db.session.scalars(
        select(MarketInvite).execution_options(all_instances=True).limit(1)
    ).one()
    assert demo_client.get(f"/api/_public/instance-invites/{invite.hash}").status_code == 200
    for secret in (first.hash, first.advert.hash, first.group.hash, made_up):
        for path in (f"/market-invite/{secret}", f"/api/_public/instance-invites/{secret}"):
            if demo_client.get(path).status_code != 404:
                wrong.append(path)

    # Quick tests shared by link: another test's image through this test's link, made-up ids.
    values = db.session.scalars(
        select(StorageContainerValue)
        .where(StorageContainerValue.file_object_id.is_not(None))
        .order_by(StorageContainerValue.id)
        .execution_options(all_instances=True)
    ).all()
    mine = values[0]
    foreign = next(v for v in values if v.container_id != mine.container_id)
    test = db.session.get(StorageContainer, mine.container_id)
    image = db.session.get(FileObject, mine.file_object_id).uuid
    foreign_image = db.session.get(FileObject, foreign.file_object_id).uuid
    assert demo_client.get(f"/api/_public/quick-test/view/{test.uuid}").status_code == 200
    assert demo_client.get(f"/quick-test/view/{test.uuid}/images/{image}").status_code == 200
    for path in (
        f"/quick-test/view/{test.uuid}/images/{foreign_image}",
        f"/quick-test/view/{made_up}/images/{image}",
        f"/quick-test/view/{made_up}",
        f"/api/_public/quick-test/view/{made_up}",
        f"/email-preview/{made_up}",
        f"/email-preview/{made_up}/files/1/invitation.ics",
        f"/my-events/calendar/{made_up}.ics",
        f"/api/auth/reset-password/{made_up}",
        f"/market/saved-search-off/{made_up}",
    ):
        if demo_client.get(path).status_code != 404:
            wrong.append(path)
    assert not wrong, "Public links that answer with a part swapped or made up:\n" + "\n".join(
        wrong
    )


def test_another_instances_salespeople_and_addresses_are_never_offered_or_accepted(
    demo_app, demo_client
):
    """Values, not paths: a seller user or an address of another instance is not among the
    choices of a sale, an advert or a delivery, and posting its id is refused (issue 30)."""
    foreign = {
        "seller": db.session.scalars(
            select(SettingRow)
            .where(SettingRow.kind == "seller", SettingRow.name == "Ola Nordmann")
            .execution_options(all_instances=True)
        ).one(),
        "address": db.session.scalars(
            select(Address)
            .where(Address.name == "Sentrallageret")
            .execution_options(all_instances=True)
        ).one(),
    }
    seller = db.session.scalar(select(User).where(User.email == "seller@demo.test"))
    token = sign_in(demo_client, seller)
    activate(seller.active_instance_id)
    item = db.session.scalars(
        select(PreparationItem)
        .where(PreparationItem.state == 6, PreparationItem.module == "begcare")
        .order_by(PreparationItem.id)
    ).first()
    for path in (f"/begcare/{item.id}", "/market/advert/add", f"/bookings/vehicles/{item.id}/new"):
        page = demo_client.get(path, follow_redirects=True).get_data(as_text=True)
        assert "Ola Nordmann" not in page and "Sentrallageret" not in page, path
    demo_client.post(
        f"/begcare/items/{item.id}/move",
        data={"csrf_token": token, "to_state": "7", "salesperson_id": foreign["seller"].id},
    )
    db.session.expire_all()
    item = db.session.get(PreparationItem, item.id)
    assert (item.state, item.salesperson_id) == (6, None)
    answer = demo_client.post(
        "/market/advert/add",
        data={"csrf_token": token, "regno": "ISO123", "brand": "Volvo", "model": "V60",
              "start_price": "100000", "bid_step": "1000", "ends_at": "2099-01-01T12:00",
              "address_id": foreign["address"].id, "action": "draft"},
    )  # fmt: skip
    assert answer.status_code == 422
    assert db.session.scalar(select(Advert).where(Advert.regno == "ISO123")) is None
