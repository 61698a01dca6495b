"""A widget's value holds translated titles: a user reading another language right after does
not get the first user's language from the value cache."""

from tests.dashboard._common import API, new_widget, widget_titled, widgets_of


def test_the_state_titles_follow_the_language_after_another_language_was_cached(as_demo):
    client, _token = as_demo("seller")
    summary = widget_titled("seller@demo.test", "Fordon per status").id
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


def test_a_widget_without_a_typed_title_reads_its_default_title_in_each_language(as_demo):
    """Issue 37: the demo's and the module dashboards' widgets store no title in their creator's
    language; each reader reads the preset's (or the figure's) title in theirs."""
    client, _token = as_demo("seller")
    flow = widget_titled("seller@demo.test", "I flödet")
    assert flow.title == "" and flow.options["preset"] == "inFlow"
    for lang, title in (("en-GB", "In the flow"), ("sv-SE", "I flödet"), ("de-DE", "Im Ablauf")):
        meta = client.get(f"{API}/{flow.id}?lang={lang}").get_json()
        assert meta["label"]["custom"] == title and meta["defaultTitle"] == title, lang
        assert meta["title"] == ""  # the editor's field stays empty: nothing was typed
    client.get("/newcare/dashboard?lang=fi-FI")  # a module dashboard opened the first time
    stored = widgets_of("seller@demo.test", "newcare")
    assert stored and all(w.title == "" for w in stored)
    meta = client.get(f"{API}/{stored[0].id}?lang=nl-NL").get_json()
    assert meta["label"]["custom"] == "In de stroom"


def test_a_typed_title_stays_and_an_edit_keeps_the_preset(as_demo):
    client, token = as_demo("seller")
    flow = widget_titled("seller@demo.test", "I flödet")
    headers = {"X-CSRFToken": token}
    body = new_widget(title="", itemFilters={"enum[state]": "4"}, autoUpdate=60)
    assert client.put(f"{API}/{flow.id}", json=body, headers=headers).status_code == 200
    meta = client.get(f"{API}/{flow.id}?lang=en-GB").get_json()
    assert meta["label"]["custom"] == "In the flow"  # still its preset, not "Vehicles"
    body["title"] = "Mina i flödet"
    assert client.put(f"{API}/{flow.id}", json=body, headers=headers).status_code == 200
    meta = client.get(f"{API}/{flow.id}?lang=en-GB").get_json()
    assert meta["label"]["custom"] == "Mina i flödet" and meta["title"] == "Mina i flödet"
