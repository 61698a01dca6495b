"""Tier names in every language (issue 37, point 7): the tier admin form edits the seven names
with the shared TextsField; the leaderboard shows each reader the name in their language, the
company's language where that is missing (Swedish for a Swedish company), else the name."""

from app.core import roles as R
from app.extensions import db
from tests.factories import make_user
from tests.helpers import sign_in
from tests.ranking.test_ranking import READ, _row, ranked  # noqa: F401 (a fixture)


def test_a_tiers_name_reads_in_each_readers_language(client, ranked):  # noqa: F811
    _first, _second, a, _b = ranked
    admin = make_user(roles=[R.ROLE_ADMIN, READ])
    token = sign_in(client, admin)
    form = client.get("/admin/global/ranking/tiers/new").get_data(as_text=True)
    assert "Name in each language" in form and ">Nederlands</label>" in form
    data = {
        "name": "Gold", "min_points": "35", "csrf_token": token,
        "name_texts-sv-SE": "Guld", "name_texts-nb-NO": "Gull",
    }  # fmt: skip
    assert client.post("/admin/global/ranking/tiers/new", data=data).status_code == 302
    assert _row(a).tier.name_texts == {"sv-SE": "Guld", "nb-NO": "Gull"}
    board = "/admin/global/ranking/leaderboard"
    for language, name in (("sv-SE", "Guld"), ("nb-NO", "Gull"), ("de-DE", "Guld")):
        admin.options = {"language": language}
        db.session.flush()
        assert f"<td>{name}</td>" in client.get(board).get_data(as_text=True), language
