"""The reports screen opened with only a language in the link (?lang=sv, as a language switch
writes it) shows the empty form, not "field required" errors with 422."""

from tests.admin.test_more_screens import ADMIN
from tests.factories import make_instance, make_user
from tests.helpers import page_text, sign_in


def test_reports_open_in_swedish_without_errors(client):
    instance = make_instance()
    sign_in(client, make_user(instance, roles=ADMIN, all_divisions=True))
    response = client.get("/admin/general/reports?lang=sv")
    assert response.status_code == 200
    text = page_text(response)
    assert "Rapporter" in text and "Ladda ner" in text
    assert "Fältet är obligatoriskt" not in text and "Inte ett giltigt val" not in text
    partial = client.get("/admin/general/reports?lang=sv&report=vehicles")
    assert partial.status_code == 422 and "Fältet är obligatoriskt" in page_text(partial)
