"""The demo's purchase analyses: real data behind the purchase_analysis_pdf link."""

import json
import re

from sqlalchemy import select

from app.extensions import db
from app.purchase.models import PurchaseAnalysis
from tests.conftest import csrf_token
from tests.helpers import sign_in
from tests.shell.conftest import demo_user


def _link(demo_app) -> str:
    result = demo_app.test_cli_runner().invoke(args=["demo-links"])
    return json.loads(result.output)["purchase_analysis_pdf"]


def test_demo_has_analyses_with_valuations_comments_and_an_image(demo_app):
    analyses = db.session.scalars(
        select(PurchaseAnalysis).execution_options(all_instances=True)
    ).all()
    assert len(analyses) >= 2
    assert all(a.valuations for a in analyses)
    assert any(c.images and c.images[0].file.content_type == "image/jpeg"
               for a in analyses for c in a.comments)  # fmt: skip


def test_demo_link_prints_every_section_with_real_data(demo_app, demo_client):
    link = _link(demo_app)
    assert re.fullmatch(r"/pdf-preview/purchase-analysis/\d+", link)
    sign_in(demo_client, demo_user("seller@demo.test"))
    for language, heading, model in (
        ("sv", "Modellanalys", "Sålda fordon"),
        ("de", "Modellanalyse", "Verkaufte Fahrzeuge"),
    ):
        response = demo_client.get(f"{link}?language={language}")
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        assert heading in html and model in html
        assert 'id="pa-chart"' in html and 'src="data:image/jpeg;base64,' in html
        assert 'class="pa-input-image"' in html  # the image field's photo
        assert len(re.findall(r'class="pa-stripe[ "]', html)) == 51
        assert "NO_MODEL_ANALYSIS_DATA" not in html
        assert (
            len(
                re.findall(
                    r"<tr>", re.search(r'id="pa-model-vehicles".*?</table>', html, re.S).group(0)
                )
            )
            >= 3
        )


def test_demo_print_of_the_other_instance_is_404(demo_app, demo_client):
    sign_in(demo_client, demo_user("buyer@demo.test"))
    assert demo_client.get(_link(demo_app)).status_code == 404


def test_the_demo_analysis_lists_the_vehicles_finished_quick_test(demo_app, demo_client):
    analysis_id = int(_link(demo_app).rsplit("/", 1)[1])
    sign_in(demo_client, demo_user("seller@demo.test"))
    body = demo_client.get(f"/api/purchase-analyses/{analysis_id}/full").get_json()
    assert [t["sourceAttributes"]["identifier"] for t in body["previousTests"]] == ["MLB47K"]
    assert body["previousTests"][0]["division"] == "Nordbil Solna"
    assert body["previousTests"][0]["source"] == "Quick test, used vehicle"  # the reader's words
    page = demo_client.get(f"/purchase-analysis/{analysis_id}?lang=en").get_data(as_text=True)
    assert f"/quick-test/{body['previousTests'][0]['id']}" in page
    assert "No previous tests" not in page
    # Another company's user sees neither the analysis nor the test.
    demo_client.post("/logout", headers={"X-CSRFToken": csrf_token(demo_client, "/user")})
    sign_in(demo_client, demo_user("buyer@demo.test"))
    assert demo_client.get(f"/api/purchase-analyses/{analysis_id}/full").status_code == 404
