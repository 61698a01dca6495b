"""The print view of a quick test: signed in, A4 print-ready HTML, every section, the PDF
options of spec 02, and the division's way of writing numbers in every language."""

import json
import re
from html import unescape

from tests.helpers import page_text
from tests.quicktest.conftest import finished_tests, foreign_test


def test_the_print_view_holds_every_section_and_the_pdf_options(seller):
    client, _ = seller
    test = finished_tests()[0]
    response = client.get(f"/pdf-preview/quick-test/{test.id}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    text = page_text(response)
    for expected in ("Save as PDF", test.identifier, "Nordbil Solna", "Sara Lindqvist",
                     "Exterior", "Interior", "Technical", "Brakes", "Valuation", "4\xa0500,00\xa0kr"):  # fmt: skip
        assert expected in text, expected
    options = json.loads(unescape(re.search(r'data-html2pdf="([^"]+)"', html).group(1)))
    assert options["margin"] == [10, 2, 10, 2]
    assert options["image"]["quality"] == 1 and options["html2canvas"]["scale"] == 2
    assert options["jsPDF"] == {"unit": "mm", "format": "a4", "orientation": "portrait"}
    assert "print.css" in html or "/static/dist/print-" in html
    assert "<style" not in html  # the CSP allows only the stylesheet files


def test_the_print_view_in_swedish_and_german_keeps_swedish_numbers(seller):
    client, _ = seller
    test = finished_tests()[0]
    sv = page_text(client.get(f"/pdf-preview/quick-test/{test.id}?lang=sv-SE"))
    de = page_text(client.get(f"/pdf-preview/quick-test/{test.id}?lang=de-DE"))
    assert "Snabbtest" in sv and "Spara som PDF" in sv
    assert "Schnelltest" in de and "Als PDF speichern" in de
    # The template's entered words too (issue 37): its title, groups and fields.
    assert "Snabbtest begagnat" in sv and "Lackskador" in sv and "Bromsar" in sv
    assert "Schnelltest Gebrauchtwagen" in de and "Lackschäden" in de and "Bremsen" in de
    for text in (sv, de):
        assert "4\xa0500,00\xa0kr" in text  # the division's locale (sv-SE) and currency
        assert " km" in text


def test_empty_values_show_their_text(seller):
    client, _ = seller
    second = finished_tests()[1]  # has no comparable advert nor last service date
    text = page_text(client.get(f"/pdf-preview/quick-test/{second.id}"))
    assert "Not available" in text


def test_the_print_view_of_another_instances_test_is_not_found(seller):
    client, _ = seller
    assert client.get(f"/pdf-preview/quick-test/{foreign_test().id}").status_code == 404
    assert client.get("/pdf-preview/quick-test/999999999").status_code == 404
