"""A state switched off in the configuration (Leads, Delivery flow) is gone from the vehicles'
handling too: no state button leads into it and a move into it is refused (issue 30)."""

from app.core.models import Instance
from app.extensions import db
from app.preparation.manage import state_buttons
from app.preparation.states import states_off
from tests.helpers import page_text
from tests.preparation.manage_helpers import demo_item, in_seller_instance
from tests.preparation.test_items import item_by_regno, move


def test_with_the_delivery_flow_off_a_sold_vehicle_is_not_moved_into_it(as_demo):
    client, token = as_demo("seller")
    item = demo_item(7)
    page = f"/begcare/items/sold/{item.id}/stations-utilize"
    assert "Start delivery" in page_text(client.get(page))
    instance = db.session.get(Instance, item.instance_id)
    instance.options = {**(instance.options or {}), "begcare": {"leads": True, "soldFlow": False}}
    db.session.flush()
    in_seller_instance()
    assert states_off("begcare") == {8} and states_off("newcare") == frozenset()
    assert all(b.to_state != 8 for b in state_buttons(item))
    assert "Start delivery" not in page_text(client.get(page))
    response = move(client, token, item, 8, page)
    assert response.status_code == 302
    assert item_by_regno(item.regno).state == 7
    assert "A vehicle in Sold, not delivered cannot be moved to Delivery flow." in page_text(
        client.get(page)
    )
