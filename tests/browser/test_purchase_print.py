"""The purchase analysis print view in Chromium: the demo analysis printed to an A4 PDF (the
browser's own print, page.pdf) and saved with the page's "Save as PDF" button (html2pdf), in
Swedish and German, every section showing real data.

PDFs and page images go to test-artifacts/purchase-print-*."""

import json
import re
import subprocess

import pytest
from playwright.sync_api import expect

from tests.browser.test_auth_flows import sign_in
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

A4_POINTS = (595, 842)  # 210 x 297 mm
SECTIONS = {
    "sv": ["Fordonsdata", "Marknadspriser", "Kalkyl", "Uppgifter", "Tidigare tester",
           "Värderingar", "Kommentarer", "Bilder", "Tidigare analyser",
           "Prisprognoser", "Grundfakta", "Modellanalys", "Sålda fordon", "I lager nu"],
    "de": ["Fahrzeugdaten", "Marktpreise", "Kalkulation", "Angaben", "Frühere Tests",
           "Bewertungen", "Kommentare", "Bilder", "Frühere Analysen",
           "Preisprognosen", "Grunddaten", "Modellanalyse", "Verkaufte Fahrzeuge",
           "Aktuell im Bestand"],
}  # fmt: skip
# Real data of the demo analysis (app/purchase/demo.py), whatever the language.
DATA = ["MLB47K", "Bilpriser", "Servicebok finns", "provkorning.jpg",
        "Stenskott", "Kombi", "Dragkrok", "Prisprognos", "Sara Lindqvist", "Nordbil Solna",
        "Snabbtest begagnat"]  # the trade-in's quick test (app/quicktest/demo.py)  # fmt: skip
FIELD_TITLES = {"de": {"Servicebok finns": "Serviceheft vorhanden",
                       "Snabbtest begagnat": "Schnelltest Gebrauchtwagen"}}  # fmt: skip


def tool(name: str, *args: str) -> str:
    """Run one of poppler's tools (pdfinfo, pdftotext, pdftoppm) and return what it prints."""
    done = subprocess.run([f"/usr/bin/{name}", *args], capture_output=True, text=True, check=True)  # noqa: S603
    return done.stdout


def pdf_pages(path) -> list[tuple[float, float]]:
    info = tool("pdfinfo", "-l", "99", str(path))
    return [
        (float(w), float(h)) for w, h in re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)", info)
    ]


def is_a4(width: float, height: float) -> bool:
    """A4 portrait, within the point Chromium rounds its page size to."""
    return abs(width - A4_POINTS[0]) < 1.5 and abs(height - A4_POINTS[1]) < 1.5


def pdf_text(path) -> str:
    text = tool("pdftotext", "-layout", str(path), "-")
    return re.sub(r"\s+", " ", text.replace("\xa0", " ").replace("\u202f", " "))


def demo_link(live_server) -> str:
    with live_server.app.app_context():
        from app.demo import demo_links

        return demo_links()["purchase_analysis_pdf"]


def open_print(live_server, new_page, locale: str, language: str):
    page = new_page(locale=locale)
    sign_in(page, "seller@demo.test")  # the sign-in page in English (the context's locale)
    page.goto(f"{demo_link(live_server)}?language={language}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return page


@pytest.mark.parametrize(("locale", "language"), [("en-GB", "sv"), ("en-GB", "de")])
def test_the_browsers_print_gives_a4_pages_with_every_section(
    live_server, new_page, locale, language
):
    page = open_print(live_server, new_page, locale, language)
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"purchase-print-{language}.pdf"
    page.emulate_media(media="print")
    page.pdf(path=str(path), format="A4", prefer_css_page_size=True, print_background=True)
    pages = pdf_pages(path)
    assert 2 <= len(pages) <= 6, pages
    assert all(is_a4(w, h) for w, h in pages)
    text = pdf_text(path)
    for heading in SECTIONS[language]:
        assert heading in text, heading
    for value in DATA:
        # An entered field's title is the print language's (app/purchase/demo.FIELD_TEXTS).
        value = FIELD_TITLES.get(language, {}).get(value, value)
        assert value in text, value
    assert "Save as PDF" not in text and "Spara som PDF" not in text  # the toolbar is not printed
    assert "sv-SE" not in text and "sv_SE" not in text and "SEK" not in text  # internal fields
    # the model analysis: at least three sold demo vehicles, in the requested currency
    assert len(re.findall(r"\b[A-Z]{3}\d{2}[A-Z0-9]\b", text)) >= 5
    assert "kr" in text
    assert re.search(r"PA-\d{4}-0001", text)  # the earlier analysis of the same vehicle
    tool("pdftoppm", "-r", "50", "-png", str(path), str(ARTIFACTS / f"purchase-print-{language}"))


def test_save_as_pdf_makes_an_a4_pdf_in_the_browser(live_server, new_page):
    page = open_print(live_server, new_page, "en-GB", "sv")
    settings = json.loads(
        page.get_by_role("button", name="Spara som PDF").get_attribute("data-pdf")
    )
    assert settings == {"margin": [30, 10, 15, 10], "imageQuality": 0.8, "scale": 1.8}
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="Spara som PDF").click()
    path = ARTIFACTS / "purchase-print-html2pdf.pdf"
    download.value.save_as(path)
    assert download.value.suggested_filename.endswith("-MLB47K.pdf")
    pages = pdf_pages(path)
    assert pages and all(is_a4(w, h) for w, h in pages)


def test_the_chart_is_drawn_with_the_axis_rules(live_server, new_page):
    page = open_print(live_server, new_page, "en-GB", "sv")
    axis = page.evaluate(
        """() => {
            const chart = Object.values(window.Chart ? window.Chart.instances : {})[0];
            const data = JSON.parse(document.getElementById('pa-chart').dataset.chart);
            return {axis: data.axis, first: data.values[0], drawn: document.getElementById('pa-chart').width > 0};
        }"""
    )
    assert axis["drawn"]
    assert axis["axis"]["suggestedMax"] == pytest.approx(axis["first"] * 1.5)
    assert axis["axis"]["suggestedMin"] == pytest.approx(axis["first"] / 1.5)


def test_the_module_pages_at_desktop_and_phone_width(live_server, new_page, snap):
    page = new_page()
    sign_in(page, "seller@demo.test")
    page.goto("/purchase-analysis/list")
    snap(page, "purchase-list")
    page.get_by_role("link", name=re.compile(r"PA-\d{4}-0002")).click()
    expect(page.get_by_role("heading", name="Valuations")).to_be_visible()
    snap(page, "purchase-show")
    page.goto("/purchase-analysis/create")
    expect(page.get_by_label("Registration number")).to_be_visible()
    snap(page, "purchase-create")
    page.goto(f"{demo_link(live_server)}?language=sv")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    snap(page, "purchase-print")
