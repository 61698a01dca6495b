"""The module's rules (Administration > begcare/newcare > Rules): conditions on a vehicle, all of
which must hold, and what follows when they come to hold: a warning in the lists, a tag, a move
to another state, an in-app notification, an event for the event engine.

A rule is a SettingRow of kind "{module}.rule" (one division's, or None: the whole instance's)
whose `data` holds {"conditions": [{"field", "op", "value"}], "warning", "tag", "move",
"notify", "event"}. Its conditions are one SQL filter (`matching`), so trying a rule on today's
vehicles, the scheduler's run and the check of one changed vehicle read the same rule.

A rule acts once each time its conditions come to hold for a vehicle: ItemRuleMatch marks the
vehicles it holds for (and carries its warning), and goes when the conditions stop holding.
Rules run in the order of the rule interaction screen (priority, then name); when two would move
the same vehicle the first one wins, and a rule marked "stop" keeps later rules off the
vehicles it acts on. Every change is in the vehicle's history under the rule's name.
"""

from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta

from flask_babel import lazy_gettext as _l
from sqlalchemy import and_, delete, exists, func, not_, or_, select, update

from app.auth.models import Membership, User, user_divisions
from app.auth.services import active_members
from app.core import audit
from app.core.happenings import announce, listener
from app.core.models import Instance, utcnow
from app.core.notifications import NOTIFICATION_TEXTS, notify
from app.core.roles import ROLE_ADMIN, ROLE_USER_DIVISION_ADMIN
from app.core.settings import SettingRow, Tag
from app.core.tenancy import activate
from app.extensions import db
from app.preparation.manage import RULE_ACTION as HISTORY_ACTION
from app.preparation.models import ItemRuleMatch, ItemTag, PreparationItem
from app.preparation.services import move_item
from app.preparation.states import BY_ID, MODULES, STATES

DEFAULT_PRIORITY = 100
SAMPLE = 20  # vehicles a try lists

NOTIFICATION_TEXTS["rule"] = _l("Rule %(rule)s: %(regno)s %(model)s")

# field -> (its operators, the kind of its value)
FIELDS = {
    "state": (("is", "is_not"), "state"),
    "days_in_state": (("gt", "lt"), "int"),
    "stock_days": (("gt", "lt"), "int"),
    "mileage": (("gt", "lt"), "int"),
    "price": (("gt", "lt"), "int"),
    "tag": (("has", "has_not"), "tag"),
    "location": (("is", "is_not"), "location"),
    "tasks_overdue": (("is",), "yes_no"),
}
NOTIFY_ROLES = (ROLE_USER_DIVISION_ADMIN, ROLE_ADMIN)

# A rule's own changes announce events too (a move): they are not checked again while it acts.
_acting: ContextVar[bool] = ContextVar("rules_acting", default=False)


def _number(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _condition(module: str, cond: dict, now):
    """One condition as a filter on PreparationItem (None: an incomplete one, ignored)."""
    name, op, value = cond.get("field"), cond.get("op"), cond.get("value")
    if name not in FIELDS or op not in FIELDS[name][0]:
        return None
    if name == "state":
        state = next((s.id for s in STATES if s.key == value), None)
        if state is None:
            return None
        return PreparationItem.state == state if op == "is" else PreparationItem.state != state
    if name == "tasks_overdue":
        return PreparationItem.warning.is_(value == "yes")
    if name == "tag":
        tag = _number(value)
        if tag is None:
            return None
        has = exists().where(ItemTag.item_id == PreparationItem.id, ItemTag.tag_id == tag)
        return has if op == "has" else not_(has)
    if name == "location":
        place = _number(value)
        if place is None:
            return None
        at = PreparationItem.parking_location_id == place
        return at if op == "is" else or_(not_(at), PreparationItem.parking_location_id.is_(None))
    number = _number(value)
    if number is None:
        return None
    if name in ("days_in_state", "stock_days"):
        column = (
            PreparationItem.state_changed_at
            if name == "days_in_state"
            else PreparationItem.created_at
        )
        # more than N days: since before now - N days
        edge = now - timedelta(days=number)
        return column < edge if op == "gt" else column > edge
    column = PreparationItem.mileage if name == "mileage" else PreparationItem.sales_price
    return column > number if op == "gt" else column < number


def conditions_of(rule: SettingRow) -> list[dict]:
    return list((rule.data or {}).get("conditions") or [])


def matching(rule: SettingRow, module: str, now=None):
    """The select of the vehicles the rule holds for now (in its division; archived never),
    or None for a rule without a usable condition (it holds for nothing)."""
    now = now or utcnow()
    filters = [f for c in conditions_of(rule) if (f := _condition(module, c, now)) is not None]
    if not filters:
        return None
    stmt = select(PreparationItem).where(
        PreparationItem.instance_id == rule.instance_id,
        PreparationItem.module == module,
        PreparationItem.state != 9,
        *filters,
    )
    if rule.division_id is not None:
        stmt = stmt.where(PreparationItem.division_id == rule.division_id)
    return stmt


@dataclass
class Trial:
    """What a rule would do today: how many vehicles it holds for, and some of them."""

    count: int
    sample: list[PreparationItem] = field(default_factory=list)


def trial(rule: SettingRow, module: str) -> Trial:
    """Try a rule (saved or not, active or not) against today's vehicles; changes nothing."""
    stmt = matching(rule, module)
    if stmt is None:
        return Trial(0)
    count = db.session.scalar(select(func.count()).select_from(stmt.subquery()))
    sample = list(db.session.scalars(stmt.order_by(PreparationItem.state_changed_at).limit(SAMPLE)))
    return Trial(count, sample)


# --- order -----------------------------------------------------------------------------------


def ordered_rules(instance_id: int, module: str) -> list[tuple[SettingRow, bool]]:
    """The module's active rules in the order they act, each with its "stop" flag: by the
    rule interaction screen's priority (lower first; DEFAULT_PRIORITY without a row), then name."""
    rows = db.session.scalars(
        select(SettingRow)
        .where(
            SettingRow.instance_id == instance_id,
            SettingRow.kind.in_((f"{module}.rule", f"{module}.interaction")),
        )
        .execution_options(all_instances=True)
    ).all()
    places = {}
    for row in rows:
        if row.kind.endswith(".interaction") and row.active:
            rule_id = _number((row.data or {}).get("rule"))
            if rule_id is not None:
                priority = _number((row.data or {}).get("priority"))
                places[rule_id] = (
                    DEFAULT_PRIORITY if priority is None else priority,
                    (row.data or {}).get("stop") == "yes",
                )
    rules = [r for r in rows if r.kind.endswith(".rule") and r.active]
    rules.sort(key=lambda r: (places.get(r.id, (DEFAULT_PRIORITY, False))[0], r.name.lower()))
    return [(r, places.get(r.id, (DEFAULT_PRIORITY, False))[1]) for r in rules]


# --- acting ----------------------------------------------------------------------------------


def evaluate(instance_id: int, module: str, item_ids: list[int] | None = None) -> int:
    """Run the module's rules over its vehicles (or only `item_ids`): act where a rule comes to
    hold, drop the marks where it no longer does. Returns how many actions were taken."""
    token = _acting.set(True)
    try:
        return _evaluate(instance_id, module, item_ids)
    finally:
        _acting.reset(token)


def _evaluate(instance_id: int, module: str, item_ids) -> int:
    now = utcnow()
    moved: set[int] = set()  # vehicles a rule has moved in this run: the first move wins
    stopped: set[int] = set()
    actions = 0
    for rule, stop in ordered_rules(instance_id, module):
        stmt = matching(rule, module, now)
        holds = []
        if stmt is not None:
            if item_ids is not None:
                stmt = stmt.where(PreparationItem.id.in_(item_ids))
            holds = list(db.session.scalars(stmt.execution_options(all_instances=True)))
        marks = _marks(rule, item_ids)
        gone = set(marks) - {i.id for i in holds}
        if gone:
            db.session.execute(
                delete(ItemRuleMatch).where(
                    ItemRuleMatch.rule_id == rule.id, ItemRuleMatch.item_id.in_(gone)
                )
            )
        for item in holds:
            if item.id in stopped:
                continue
            if item.id not in marks:
                actions += _act(rule, module, item, moved)
            if stop:
                stopped.add(item.id)
    db.session.flush()
    return actions


def warning_of(rule: SettingRow) -> tuple[str, dict]:
    """The rule's warning as written and in each language ({locale tag: text}, the admin's
    "Warning in each language"); the lists show the reader's (app.core.localized)."""
    data = rule.data or {}
    texts = {
        tag: str(text)[:120] for tag, text in (data.get("warning_texts") or {}).items() if text
    }
    return (data.get("warning") or "").strip()[:120], texts


def _marks(rule: SettingRow, item_ids) -> dict[int, ItemRuleMatch]:
    stmt = select(ItemRuleMatch).where(ItemRuleMatch.rule_id == rule.id)
    if item_ids is not None:
        stmt = stmt.where(ItemRuleMatch.item_id.in_(item_ids))
    return {m.item_id: m for m in db.session.scalars(stmt.execution_options(all_instances=True))}


def _act(rule: SettingRow, module: str, item: PreparationItem, moved: set[int]) -> int:
    """The rule has come to hold for the vehicle: mark it and do what the rule says."""
    data = rule.data or {}
    warning, texts = warning_of(rule)
    db.session.add(
        ItemRuleMatch(
            instance_id=item.instance_id, item_id=item.id, rule_id=rule.id, text=warning,
            text_texts=texts,
        )
    )  # fmt: skip
    done = 0
    tag_id = _number(data.get("tag"))
    if tag_id is not None and _tag(rule, item, tag_id):
        done += 1
    target = next((s.id for s in STATES if s.key == data.get("move")), None)
    if target is not None and target != item.state:
        if item.id in moved:
            _history(rule, item, "skipped_move", state=BY_ID[target].key)
        else:
            before = item.state
            move_item(item, target)
            moved.add(item.id)
            _history(rule, item, "move", state=BY_ID[target].key, previous=BY_ID[before].key)
            done += 1
    if data.get("notify") in (*NOTIFY_ROLES, "division"):
        users = recipients(item.instance_id, item.division_id, data["notify"])
        if users:
            notify(
                item.instance_id, users, "rule", f"/{module}/{item.id}",
                rule=rule.name, regno=item.regno, model=item.full_model_name,
            )  # fmt: skip
            _history(rule, item, "notify", count=len(users))
            done += 1
    if data.get("event") == "yes":
        announce(
            "rule.matched", item.instance_id, ruleId=rule.id, rule=rule.name, itemId=item.id,
            module=module, regno=item.regno, divisionId=item.division_id,
            state=BY_ID[item.state].key,
        )  # fmt: skip
        done += 1
    if warning:
        _history(rule, item, "warning", text=warning, text_texts=texts)
    return done


def _tag(rule: SettingRow, item: PreparationItem, tag_id: int) -> bool:
    tag = db.session.scalars(
        select(Tag)
        .where(Tag.id == tag_id, Tag.instance_id == item.instance_id)
        .execution_options(all_instances=True)
    ).first()
    if tag is None:  # deleted since: nothing to add
        return False
    has = db.session.scalar(
        select(ItemTag.id)
        .where(ItemTag.item_id == item.id, ItemTag.tag_id == tag_id)
        .execution_options(all_instances=True)
    )
    if has:
        return False
    db.session.add(ItemTag(instance_id=item.instance_id, item_id=item.id, tag_id=tag_id))
    _history(rule, item, "tag", tag=tag.name, tag_texts=tag.name_texts)
    return True


def _history(rule: SettingRow, item: PreparationItem, what: str, **details) -> None:
    """The vehicle's history entry of an automatic change, naming the rule (no user)."""
    db.session.add(
        audit.AuditLog(
            action=HISTORY_ACTION,
            instance_id=item.instance_id,
            division_id=item.division_id,
            details={"item_id": item.id, "rule_id": rule.id, "rule": rule.name,
                     "rule_texts": (rule.data or {}).get("name_texts") or {}, "what": what,
                     **details},
        )
    )  # fmt: skip


def recipients(instance_id: int, division_id: int, target: str) -> list[int]:
    """The active users of the instance who reach the division and hold the role (a division
    administrator's role in any of its scoped forms; "division": everyone of the division)."""
    reach = or_(
        Membership.all_divisions.is_(True),
        exists().where(
            and_(user_divisions.c.user_id == User.id, user_divisions.c.division_id == division_id)
        ),
    )
    users = db.session.scalars(active_members(instance_id, reach)).all()
    found = []
    for user in users:
        roles = user.roles_in(instance_id)
        if target == "division" or any(r.startswith(target) for r in roles):
            found.append(user.id)
    return found


def rules_changed(instance_id: int, saved: SettingRow | None = None) -> None:
    """After a rule is saved or deleted: an inactive rule's marks go (its warnings with them),
    a `saved` rule's marks show its warning as it reads now, and the instance remembers whether
    any active rule warns, so that the lists read no warnings while none does
    (Instance.options["ruleWarnings"])."""
    if saved is not None and saved.id is not None:
        warning, texts = warning_of(saved)
        db.session.execute(
            update(ItemRuleMatch)
            .where(ItemRuleMatch.rule_id == saved.id)
            .values(text=warning, text_texts=texts)
        )
    rows = db.session.scalars(
        select(SettingRow)
        .where(SettingRow.instance_id == instance_id, SettingRow.kind.like("%.rule"))
        .execution_options(all_instances=True)
    ).all()
    idle = [r.id for r in rows if not r.active]
    if idle:
        db.session.execute(delete(ItemRuleMatch).where(ItemRuleMatch.rule_id.in_(idle)))
    warns = any(r.active and (r.data or {}).get("warning") for r in rows)
    instance = db.session.get(Instance, instance_id)
    if bool((instance.options or {}).get("ruleWarnings")) != warns:
        instance.options = {**(instance.options or {}), "ruleWarnings": warns}


# --- when it runs ----------------------------------------------------------------------------


@listener
def on_vehicle_change(name: str, instance_id: int, many: list[dict]) -> None:
    """Vehicles added or moved (not by a rule): the module's rules look at them at once."""
    if _acting.get() or name not in ("vehicle.added", "vehicle.state_changed"):
        return
    by_module: dict[str, list[int]] = {}
    for facts in many:
        item_id, module = facts.get("itemId"), facts.get("module")
        if item_id is not None and module in MODULES:
            by_module.setdefault(module, []).append(item_id)
    if by_module:
        db.session.flush()
    for module, item_ids in by_module.items():
        evaluate(instance_id, module, item_ids)


def run_rules() -> dict[int, int]:
    """The scheduled job: every active instance's rules over all its vehicles; {instance id:
    actions taken}."""
    result = {}
    ids = db.session.scalars(select(Instance.id).where(Instance.active.is_(True))).all()
    for instance_id in ids:
        activate(instance_id)
        try:
            result[instance_id] = sum(evaluate(instance_id, m) for m in MODULES)
            db.session.commit()
        finally:
            activate(None)
    return result
