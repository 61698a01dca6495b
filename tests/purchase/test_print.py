"""The print view pdf-preview/purchase-analysis/{id}: sections, empty texts, parameters."""

import re

import pytest

from app.core.tenancy import activate
from app.extensions import db
from app.market.models import ExchangeRate
from app.purchase.models import PurchaseAnalysis
from tests.helpers import page_text, translated


def url(world, query=""):
    return f"/pdf-preview/purchase-analysis/{world.analysis.id}{query}"


def section(html: str, name: str) -> str:
    match = re.search(rf'<section[^>]*id="pa-{name}".*?</section>', html, re.S)
    assert match, f"section {name} missing"
    text = re.sub(r"<[^>]+>", " ", match.group(0)).replace("\xa0", " ").replace("\u202f", " ")
    return re.sub(r"\s+", " ", text)


def page_text_of(html: str) -> str:
    """The document's visible words (the part between the body tags, tags removed)."""
    body = html.split('id="pa-document"', 1)[1]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def test_the_print_leaves_out_internal_fields_and_names_each_source(signed_in, world):
    client, token = signed_in
    client.post(
        f"/purchase-analysis/{world.analysis.id}/calculation",
        data={"csrf_token": token, "calculator_id": world.calculator.id, "input_value": "200000"},
    )
    html = client.get(url(world, "?language=en-GB")).get_data(as_text=True)
    text = page_text_of(html)
    for internal in ("Locale", "sv-SE", "Currency", "Mileage unit", f">{world.analysis.id}<"):
        assert internal not in text
    labels = re.findall(r"<dt>([^<]+)</dt>", html) + re.findall(
        r'<th scope="col"[^>]*>([^<]+)</th>', html.split('id="pa-previous-tests"')[0]
    )
    assert "Source" not in labels
    calc = section(html, "calculation")  # the analysis print holds the calculation too
    assert "200 000 kr" in calc and "170 000 kr" in calc and "Repairs" in calc


def test_print_view_needs_sign_in(client, world):
    response = client.get(url(world))
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


def test_print_view_of_another_instance_or_division_is_404(signed_in, other, world):
    client, _ = signed_in
    assert client.get(f"/pdf-preview/purchase-analysis/{other.analysis.id}").status_code == 404
    assert client.get("/pdf-preview/purchase-analysis/99999999999").status_code == 404


def test_every_section_shows_its_data(signed_in, world):
    client, _ = signed_in
    response = client.get(url(world, "?language=en-GB"))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    vehicle = section(html, "vehicle")
    for value in ("Volvo", "V60", "T6", "2021", "Petrol", "Blue", "XYZ123", "42 000 km"):
        assert value in vehicle
    valuation = section(html, "valuation")
    assert "200 000 kr" in valuation and "240 000 kr" in valuation and "Market" in valuation
    assert "Market prices" in valuation and "Market price source" in valuation
    assert "Condition" in section(html, "inputs") and "Winter" in section(html, "inputs")
    assert "No previous tests" in section(html, "previous-tests")
    valuations = section(html, "valuations")
    assert "180 000 kr" in valuations and "Dealer" in valuations
    assert "Gross margin" in valuations and "49 000 kr" in valuations  # 229 000 - 180 000
    assert "Valuation source" in valuations
    assert "No comments" in section(html, "comments")
    assert "No images uploaded" in section(html, "images")
    assert "Not available" in section(html, "previous-analyses")
    predictions = section(html, "predictions")
    assert "Price forecasts" in predictions and "215 000 kr" in predictions
    assert "Forecast source" in predictions
    basic = section(html, "basic")
    assert "3 600 kr" in basic and "Estate" in basic and "Towbar" in basic
    assert "Not available" in basic  # the annual malus and trim packages are not known
    model = section(html, "model-analysis")
    assert "ABC101" in model and "ABC103" in model and "ABC104" in model
    assert 'id="pa-chart"' in html


def test_the_interval_bar_has_51_stripes_on_the_page(signed_in, world):
    client, _ = signed_in
    html = client.get(url(world)).get_data(as_text=True)
    assert len(re.findall(r'class="pa-stripe[ "]', html)) == 51
    # scale 180 000 .. 264 000: priceMin 200 000 at 23.8 % -> the stripe at 24 %
    assert "pa-marker pa-marker-priceMin pa-at-24" in html


def test_the_chart_carries_the_axis_rules_and_the_y_axis_asked_for(signed_in, world):
    client, _ = signed_in
    html = client.get(url(world, "?yAxis=averageGrossMargin")).get_data(as_text=True)
    chart = re.search(r'data-chart="([^"]+)"', html).group(1).replace("&#34;", '"')
    assert '"yAxis": "averageGrossMargin"' in chart
    assert '"values": [30000.0, 35000.0, 40000.0]' in chart
    assert '"suggestedMax": 45000.0' in chart and '"suggestedMin": 20000.0' in chart


@pytest.mark.parametrize("bad", ["yAxis=price", "yAxis=", "yAxis=SALESPRICE"])
def test_a_malformed_y_axis_falls_back_to_sales_price(signed_in, world, bad):
    client, _ = signed_in
    html = client.get(url(world, f"?{bad}")).get_data(as_text=True)
    assert "&#34;yAxis&#34;: &#34;salesPrice&#34;" in html


def test_content_calculation_prints_the_latest_calculation(signed_in, world):
    client, token = signed_in
    client.post(
        f"/purchase-analysis/{world.analysis.id}/calculation",
        data={"csrf_token": token, "calculator_id": world.calculator.id, "input_value": "200000"},
    )
    html = client.get(url(world, "?content=calculation&language=en-GB")).get_data(as_text=True)
    calc = section(html, "calculation")
    assert "200 000 kr" in calc and "170 000 kr" in calc  # 200 000 - 10 000 - 10 %
    assert "Repairs" in calc and "20 000 kr" in calc
    assert "Target margin" in calc and "10,00 %" in calc  # sv-SE numbers
    assert 'id="pa-vehicle"' not in html


def test_content_calculation_without_one_says_not_available(signed_in, world):
    client, _ = signed_in
    html = client.get(url(world, "?content=calculation&language=en-GB")).get_data(as_text=True)
    assert "Not available" in section(html, "calculation")


def test_malformed_content_falls_back_to_the_analysis(signed_in, world):
    client, _ = signed_in
    html = client.get(url(world, "?content=everything")).get_data(as_text=True)
    assert 'id="pa-vehicle"' in html


@pytest.mark.parametrize(
    ("language", "heading"), [("sv", "Inköpsanalys"), ("de-DE", "Einkaufsanalyse")]
)
def test_the_language_parameter_translates_the_page(app, signed_in, world, language, heading):
    client, _ = signed_in
    response = client.get(url(world, f"?language={language}"))
    text = page_text(response)
    assert heading in text
    locale = {"sv": "sv_SE", "de-DE": "de_DE"}[language]
    assert translated(app, "No previous tests", locale) in text


def test_locale_and_currency_format_the_amounts(signed_in, world):
    activate(world.instance.id)
    db.session.add(ExchangeRate(currency="SEK", to_currency="EUR", rate=0.1))
    db.session.flush()
    activate(None)
    client, _ = signed_in
    html = client.get(url(world, "?currency=EUR&locale=de-DE")).get_data(as_text=True)
    assert "22.000 €" in section(html, "valuation")  # 220 000 SEK at 0.1
    assert "de-DE" not in page_text_of(html)  # the locale formats; it is not printed


@pytest.mark.parametrize(
    "query", ["?currency=XXX", "?currency=eur1", "?locale=zz-ZZ", "?locale=<b>"]
)
def test_unknown_currency_or_locale_falls_back_to_the_divisions(signed_in, world, query):
    client, _ = signed_in
    response = client.get(url(world, query))
    assert response.status_code == 200
    assert "220 000 kr" in section(response.get_data(as_text=True), "valuation")


def test_mileage_unit_miles(signed_in, world):
    client, _ = signed_in
    html = client.get(url(world, "?milageUnit=mi&locale=en-GB")).get_data(as_text=True)
    assert "26,098 mi" in section(html, "vehicle")  # 42 000 km
    html = client.get(url(world, "?milageUnit=furlong&locale=en-GB")).get_data(as_text=True)
    assert "42,000 km" in section(html, "vehicle")


def test_divisions_limit_the_model_analysis(signed_in, world, other):
    client, _ = signed_in
    only = world.divisions[1].id
    model = section(
        client.get(url(world, f"?divisions={only}")).get_data(as_text=True), "model-analysis"
    )
    assert "ABC102" in model and "ABC101" not in model
    # malformed or foreign divisions are ignored: all the user's divisions
    foreign = other.divisions[0].id
    model = section(
        client.get(url(world, f"?divisions=x,{foreign}")).get_data(as_text=True), "model-analysis"
    )
    assert "ABC101" in model and "ABC102" in model


def test_items_per_page_limits_the_inventory(signed_in, world):
    from tests.purchase.conftest import sold_vehicle

    activate(world.instance.id)
    sold_vehicle(world.divisions[0], "ABC107", 1, 1, 3, None)
    activate(None)
    client, _ = signed_in
    html = client.get(url(world, "?itemsPerPage=1&language=en-GB")).get_data(as_text=True)
    assert (
        len(re.findall(r"<tr>", re.search(r'id="pa-inventory".*?</table>', html, re.S).group(0)))
        == 2
    )
    assert "1 of 2 vehicles shown" in html
    html = client.get(url(world, "?itemsPerPage=abc")).get_data(as_text=True)
    assert "ABC107" in html and "ABC104" in html


def test_an_empty_analysis_shows_every_empty_text(app, signed_in, world):
    activate(world.instance.id)
    empty = PurchaseAnalysis(
        identifier="PA-2026-0002", division_id=world.divisions[0].id, status="draft",
        regno="EMP001", brand="Saab", model="9000", inputs={}, valuation={},
        price_predictions=[], basic={},
    )  # fmt: skip
    db.session.add(empty)
    db.session.flush()
    activate(None)
    client, _ = signed_in
    response = client.get(f"/pdf-preview/purchase-analysis/{empty.id}?language=en-GB")
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    for name, text in (
        ("previous-tests", "No previous tests"), ("valuations", "No valuations"),
        ("comments", "No comments"), ("images", "No images uploaded"),
        ("previous-analyses", "Not available"), ("predictions", "Not available"),
    ):  # fmt: skip
        assert text in section(html, name)
    assert translated(app, "NO_MODEL_ANALYSIS_DATA") in section(html, "model-analysis")
    assert translated(app, "NO_MATCHING_VEHICLES_COULD_BE_FOUND") in section(html, "model-analysis")
    assert 'class="pa-stripe' not in html


def test_the_save_button_carries_the_specs_pdf_settings(signed_in, world):
    client, _ = signed_in
    html = client.get(url(world)).get_data(as_text=True)
    settings = re.search(r'data-pdf="([^"]+)"', html).group(1).replace("&#34;", '"')
    assert '"margin": [30, 10, 15, 10]' in settings
    assert '"imageQuality": 0.8' in settings and '"scale": 1.8' in settings
    assert "@page { size: A4 portrait; margin: 30mm" in html


def test_the_inline_stylesheet_is_allowed_by_its_nonce_only(signed_in, world):
    client, _ = signed_in
    response = client.get(url(world))
    csp = response.headers["Content-Security-Policy"]
    nonce = re.search(r'<style nonce="([^"]+)">', response.get_data(as_text=True)).group(1)
    assert f"style-src 'self' 'nonce-{nonce}'" in csp
    assert "unsafe-inline" not in csp and "script-src 'self'" in csp
    assert ' style="' not in response.get_data(as_text=True)


def test_the_calculation_reads_its_calculators_titles_in_the_readers_language(signed_in, world):
    """The analysis keeps the rows' titles as written; the print and the page read the
    calculator's title and rows' titles in the reader's language."""
    client, token = signed_in
    world.calculator.title_texts = {"de-DE": "Inzahlungnahme"}
    world.calculator.row_titles_texts = {"de-DE": "Reparaturen\nMarge"}
    db.session.flush()
    client.post(
        f"/purchase-analysis/{world.analysis.id}/calculation",
        data={"csrf_token": token, "calculator_id": world.calculator.id, "input_value": "200000"},
    )
    db.session.expire_all()
    stored = db.session.get(type(world.analysis), world.analysis.id).latest_calculation
    assert [r["title"] for r in stored["rows"]] == ["Repairs", "Margin"]
    calc = section(client.get(url(world, "?content=calculation&language=de-DE")).get_data(as_text=True), "calculation")  # fmt: skip
    assert "Inzahlungnahme" in calc and "Reparaturen" in calc and "Marge" in calc
    assert "Repairs" not in calc
    page = client.get(f"/purchase-analysis/{world.analysis.id}?lang=de-DE").get_data(as_text=True)
    assert "Inzahlungnahme:" in page and ">Inzahlungnahme</option>" in page
