"""A widget's value holds translated titles: a user reading another language right after does
not get the first user's language from the value cache."""

from tests.dashboard._common import API, widget_titled


def test_the_state_titles_follow_the_language_after_another_language_was_cached(as_demo):
    client, _token = as_demo("seller")
    summary = widget_titled("seller@demo.test", "Fordon per läge").id
    per_state = widget_titled("seller@demo.test", "Per läge").id

    english = client.get(f"{API}/{summary}?lang=en").get_json()["value"]
    assert [s["title"] for s in english["sections"]][:2] == ["Purchase", "Preparation and stock"]
    client.get(f"{API}/{per_state}?lang=en")

    swedish = client.get(f"{API}/{summary}?lang=sv").get_json()["value"]
    titles = [s["title"] for s in swedish["sections"]]
    assert "Iordningställande och lager" in titles and "Preparation and stock" not in titles
    assert swedish["totalItemsCount"] == english["totalItemsCount"]
    rows = client.get(f"{API}/{per_state}?lang=de").get_json()["value"]["values"]
    assert "Sold, not delivered" not in [row["title"] for row in rows]
