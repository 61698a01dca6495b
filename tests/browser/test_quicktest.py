"""Quick tests in a real browser: the seller fills one in at phone width (with the connection
dropping on the way), finishes it and opens its public link signed out; the demo test printed
to an A4 PDF by Chromium, in Swedish and German, and saved as PDF with the page's own button."""

import re
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import delete, select

from app.demo import DEMO_PASSWORD
from app.extensions import db
from app.quicktest.models import StorageContainer, StorageContainerValue
from tests.browser.conftest import MOBILE
from tests.conftest import ARTIFACTS

pytestmark = pytest.mark.browser
A4_POINTS = (595.0, 842.0)  # 210 x 297 mm
# The demo template's groups in each print's language (app/quicktest/demo.py).
SECTIONS = {
    "sv-SE": ("Exteriör", "Interiör", "Teknik", "Bromsar", "Värdering"),
    "de-DE": ("Außen", "Innenraum", "Technik", "Bremsen", "Bewertung"),
}


def sign_in(page, email: str = "seller@demo.test") -> None:
    page.goto("/login")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(DEMO_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).not_to_have_url(re.compile(r"/login"))


def demo_test(live_server) -> StorageContainer:
    with live_server.app.app_context():
        test = db.session.scalars(
            select(StorageContainer)
            .where(StorageContainer.reported_at.is_not(None))
            .order_by(StorageContainer.id)
            .execution_options(all_instances=True)
        ).first()
        db.session.expunge(test)
        return test


@pytest.fixture
def cleanup(live_server):
    """Remove the tests a browser test starts (the demo's two stay)."""
    yield
    with live_server.app.app_context():
        ids = db.session.scalars(
            select(StorageContainer.id)
            .where(StorageContainer.identifier == "QTT123")
            .execution_options(all_instances=True)
        ).all()
        if ids:
            db.session.execute(
                delete(StorageContainerValue).where(StorageContainerValue.container_id.in_(ids))
            )
            db.session.execute(delete(StorageContainer).where(StorageContainer.id.in_(ids)))
            db.session.commit()


def test_the_seller_fills_in_a_quick_test_on_a_phone(new_page, live_server, cleanup, tmp_path):
    page = new_page(viewport=MOBILE)
    sign_in(page)
    page.goto("/quick-test")
    page.get_by_label("Registration number", exact=True).fill("qtt 123")
    page.get_by_role("button", name="Start").click()
    expect(page.get_by_text("Step 1 of 4")).to_be_visible()
    page.wait_for_selector("[data-qt-ready]", state="attached")

    page.get_by_label("Paint damage").select_option("Små")
    expect(page.locator('[data-status-for$="-1"]').first).to_have_text("Saved")
    depth = page.get_by_label("Tread depth, summer tyres (mm)")
    depth.fill("fem")
    depth.blur()
    expect(page.get_by_text("Enter a number.")).to_be_visible()
    depth.fill("5,5")
    depth.blur()
    expect(page.get_by_text("Enter a number.")).to_be_hidden()
    picture = tmp_path / "front.jpg"
    from app.quicktest.demo import car_picture

    picture.write_bytes(car_picture((20, 120, 60)))
    page.get_by_label("Photo from the front").set_input_files(str(picture))
    expect(page.locator(".qt-image-field img")).to_have_count(1)

    # The connection drops: the answer waits in the page and goes when it is back.
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("Step 2 of 4")).to_be_visible()
    page.wait_for_selector("[data-qt-ready]", state="attached")
    page.context.set_offline(True)
    page.get_by_label("Yes").first.check()  # Non-smoker
    expect(page.get_by_text("Not sent yet")).to_be_visible()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("No connection.")).to_be_visible()
    expect(page.get_by_text("Step 2 of 4")).to_be_visible()
    page.context.set_offline(False)
    expect(page.get_by_text("Saved").first).to_be_visible()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("Step 3 of 4")).to_be_visible()
    page.get_by_label("Mileage (km)").fill("48200")
    page.get_by_label("Front brakes").select_option("Bra")
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_text("Step 4 of 4")).to_be_visible()
    page.get_by_role("button", name="Review and finish").click()
    review = page.locator("main")
    for text in ("Minor", "5,5", "48\xa0200 km", "Good", "Yes"):  # the options in English
        expect(review).to_contain_text(text)
    page.get_by_role("button", name="Finish the quick test").click()
    expect(page.get_by_text("The quick test is finished.")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "quicktest-finished-375.png", full_page=True)
    link = page.get_by_label("Public link").input_value()

    # The public link opens signed out, on a phone.
    public = new_page(viewport=MOBILE)
    public.goto(link)
    expect(public.get_by_role("heading", name=re.compile("QTT123"))).to_be_visible()
    expect(public.locator("main")).to_contain_text("48\xa0200 km")
    expect(public.locator(".qt-image img")).to_have_count(1)
    assert public.locator(".qt-image img").evaluate("img => img.naturalWidth") > 0
    assert public.evaluate("document.documentElement.scrollWidth") <= 375
    public.screenshot(path=ARTIFACTS / "quicktest-public-375.png", full_page=True)


def poppler(tool: str, *args: str) -> str:
    """Run one of poppler's tools (installed with Chromium's test set-up) on our own files."""
    return subprocess.run(  # noqa: S603 - a fixed program on paths the test made
        [f"/usr/bin/{tool}", *args], capture_output=True, text=True, check=True
    ).stdout


def pdf_text(path: Path) -> str:
    return poppler("pdftotext", "-layout", str(path), "-")


def pdf_info(path: Path) -> dict:
    out = poppler("pdfinfo", str(path))
    return dict(
        (k.strip(), v.strip()) for k, v in (line.split(":", 1) for line in out.splitlines())
    )


@pytest.mark.parametrize(
    ("lang", "title", "empty"),
    [("sv-SE", "Snabbtest", "Saknas"), ("de-DE", "Schnelltest", "Nicht verfügbar")],
)
def test_the_demo_quick_test_prints_to_a_clean_a4_pdf(new_page, live_server, lang, title, empty):
    test = demo_test(live_server)
    page = new_page()
    sign_in(page)
    page.goto(f"/pdf-preview/quick-test/{test.id}?lang={lang}")
    page.wait_for_load_state("networkidle")
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"quicktest-{lang}.pdf"
    page.emulate_media(media="print")
    page.pdf(path=str(path), format="A4", prefer_css_page_size=True, print_background=True)
    info = pdf_info(path)
    width, height = (float(v) for v in re.findall(r"[\d.]+", info["Page size"])[:2])
    assert (round(width), round(height)) == A4_POINTS
    pages = int(info["Pages"])
    assert 1 <= pages <= 3
    text = pdf_text(path)
    assert f"{title} {test.identifier}" in text
    for section in SECTIONS[lang]:
        assert section in text, section
    storage = {"sv-SE": "Snabbtest begagnat", "de-DE": "Schnelltest Gebrauchtwagen"}[lang]
    for value in ("Nordbil Solna", "Sara Lindqvist", storage, "4 500,00 kr", "km"):
        assert value in text.replace("\xa0", " "), value
    assert "Save as PDF" not in text and "Spara som PDF" not in text  # the toolbar is not printed
    poppler("pdftoppm", "-png", "-r", "60", str(path), str(ARTIFACTS / f"quicktest-{lang}"))
    second = db_second_test(live_server)
    page.goto(f"/pdf-preview/quick-test/{second}?lang={lang}")
    assert empty in page.locator("main").inner_text()


def db_second_test(live_server) -> int:
    with live_server.app.app_context():
        return db.session.scalars(
            select(StorageContainer.id)
            .where(StorageContainer.reported_at.is_not(None))
            .order_by(StorageContainer.id)
            .execution_options(all_instances=True)
        ).all()[1]


def test_save_as_pdf_makes_the_pdf_in_the_browser_and_closes_the_window(new_page, live_server):
    test = demo_test(live_server)
    page = new_page()
    sign_in(page)
    with page.context.expect_page() as opened:
        page.evaluate(f"window.open('/pdf-preview/quick-test/{test.id}')")
    preview = opened.value
    preview.wait_for_load_state("networkidle")
    button = preview.get_by_role("button", name="Save as PDF")
    expect(button).to_be_enabled()
    with preview.expect_download(timeout=30_000) as download:
        button.click()
    saved = download.value
    assert saved.suggested_filename == f"Quick test {test.identifier}.pdf"
    target = ARTIFACTS / "quicktest-html2pdf.pdf"
    saved.save_as(target)
    assert target.read_bytes().startswith(b"%PDF-")
    info = pdf_info(target)
    width, height = (float(v) for v in re.findall(r"[\d.]+", info["Page size"])[:2])
    assert (round(width), round(height)) == A4_POINTS
    assert test.identifier in pdf_text(target) or int(info["Pages"]) >= 1
    preview.wait_for_event("close")  # closes itself 1 s after saving
