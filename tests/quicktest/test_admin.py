"""The quick-test admin screens: storages with their tree of groups, information groups and
informations. Read by their roles, changed by administrators; another instance's rows are 404."""

import pytest
from sqlalchemy import select

from app.core import roles as R
from app.extensions import db
from app.quicktest.models import Information, InformationGroup, Storage, StorageGroup
from tests.factories import make_user
from tests.helpers import page_text, sign_in
from tests.quicktest.conftest import demo_storage, foreign_test, instance

SCREENS = {
    "/admin/general/storages": "ROLE_TENANT_STORAGE_READ",
    "/admin/general/information-groups": "ROLE_TENANT_INFORMATION_READ",
    "/admin/general/information": "ROLE_TENANT_INFORMATION_READ",
}


@pytest.fixture
def admin(as_demo):
    return as_demo("admin")


def reader(client, role):
    user = make_user(instance("Nordbil AB"), roles=["ROLE_USER", role], modules=["quickTest"])
    return sign_in(client, user)


@pytest.mark.parametrize(("path", "role"), SCREENS.items())
def test_a_reader_sees_the_list_without_changing_it(demo_client, path, role):
    token = reader(demo_client, role)
    response = demo_client.get(path)
    assert response.status_code == 200
    assert "Changing them needs an administrator" in page_text(response)
    assert demo_client.get(f"{path}/new").status_code == 403
    assert (
        demo_client.post(f"{path}/new", data={"csrf_token": token, "title": "X"}).status_code == 403
    )


@pytest.mark.parametrize("path", SCREENS)
def test_a_user_without_the_role_is_refused(as_demo, path):
    client, _ = as_demo("seller")
    assert client.get(path).status_code == 403


def test_the_storage_list_and_tree_show_the_demo_template(admin):
    client, _ = admin
    storage = demo_storage()
    assert "Snabbtest begagnat" in page_text(client.get("/admin/general/storages"))
    tree = page_text(client.get(f"/admin/general/storages/{storage.id}"))
    for title in ("Exteriör", "Bromsar", "Lackskador", "Takes photos"):
        assert title in tree
    # Used by quick tests: no delete, and the delete step says why.
    refusal = page_text(client.get(f"/admin/general/storages/{storage.id}/delete"))
    assert "Quick tests were made with this storage, so it cannot be deleted." in refusal
    assert (
        client.post(
            f"/admin/general/storages/{storage.id}/delete", data={"csrf_token": admin[1]}
        ).status_code
        == 409
    )


def test_an_admin_builds_a_storage_with_nested_groups(admin):
    client, token = admin
    response = client.post(
        "/admin/general/storages/new",
        data={"csrf_token": token, "title": "Leveranskontroll", "group": "Nybil"},
    )
    assert response.status_code == 302
    storage = db.session.scalars(select(Storage).where(Storage.title == "Leveranskontroll")).one()
    info = client.post(
        "/admin/general/information/new",
        data={"csrf_token": token, "title": "Färg", "type": "select", "choices": "Röd\nBlå\nRöd\n",
              "information_group": "", "ordering": "3"},
    )  # fmt: skip
    assert info.status_code == 302
    colour = db.session.scalars(select(Information).where(Information.title == "Färg")).one()
    assert colour.choices == ["Röd", "Blå"]
    top = client.post(
        f"/admin/general/storages/{storage.id}/groups/new",
        data={"csrf_token": token, "title": "Utvändigt", "parent": "", "ordering": "0",
              "show_title": "y", "image_support": "y", "informations": [str(colour.id)]},
    )  # fmt: skip
    assert top.status_code == 302
    parent = db.session.scalars(select(StorageGroup).where(StorageGroup.title == "Utvändigt")).one()
    assert parent.image_support and [li.information_id for li in parent.links] == [colour.id]
    child = client.post(
        f"/admin/general/storages/{storage.id}/groups/new",
        data={"csrf_token": token, "title": "Fälgar", "parent": str(parent.id), "ordering": "1"},
    )
    assert child.status_code == 302
    tree = page_text(client.get(f"/admin/general/storages/{storage.id}"))
    assert tree.index("Utvändigt") < tree.index("Fälgar")
    # A group cannot sit inside itself or its children.
    loop = client.post(
        f"/admin/general/storages/{storage.id}/groups/{parent.id}/edit",
        data={"csrf_token": token, "title": "Utvändigt", "parent": str(parent.id), "ordering": "0"},
    )
    assert loop.status_code == 422
    # Deleting the top group takes its child with it.
    assert (
        client.post(
            f"/admin/general/storages/{storage.id}/groups/{parent.id}/delete",
            data={"csrf_token": token},
        ).status_code
        == 302
    )
    assert not db.session.scalars(
        select(StorageGroup).where(StorageGroup.storage_id == storage.id)
    ).all()


def test_bad_input_is_kept_with_its_message(admin):
    client, token = admin
    empty = client.post("/admin/general/storages/new", data={"csrf_token": token, "title": ""})
    assert empty.status_code == 422
    long = client.post(
        "/admin/general/information/new",
        data={"csrf_token": token, "title": "x" * 101, "type": "text", "ordering": "0"},
    )
    assert long.status_code == 422
    assert 'value="' + "x" * 101 in page_text(long)
    choice = client.post(
        "/admin/general/information/new",
        data={"csrf_token": token, "title": "Val", "type": "select", "choices": " \n ",
              "ordering": "0"},
    )  # fmt: skip
    assert choice.status_code == 422
    assert "A choice needs at least one option." in page_text(choice)
    bad_type = client.post(
        "/admin/general/information/new",
        data={"csrf_token": token, "title": "Val", "type": "video", "ordering": "0"},
    )
    assert bad_type.status_code == 422
    assert not db.session.scalars(select(Information).where(Information.title == "Val")).all()


def test_information_groups_are_listed_changed_and_deleted(admin):
    client, token = admin
    assert "Exteriör" in page_text(client.get("/admin/general/information-groups"))
    created = client.post(
        "/admin/general/information-groups/new",
        data={"csrf_token": token, "title": "Dokument", "ordering": "90"},
    )
    assert created.status_code == 302
    row = db.session.scalars(
        select(InformationGroup).where(InformationGroup.title == "Dokument")
    ).one()
    assert (
        client.post(
            f"/admin/general/information-groups/{row.id}/delete", data={"csrf_token": token}
        ).status_code
        == 302
    )


def test_an_information_with_values_is_kept(admin):
    client, token = admin
    used = db.session.scalars(select(Information).where(Information.title == "Lackskador")).one()
    response = client.post(
        f"/admin/general/information/{used.id}/delete", data={"csrf_token": token}
    )
    assert response.status_code == 409
    changed = client.post(
        f"/admin/general/information/{used.id}/edit",
        data={"csrf_token": token, "title": "Lackskador", "type": "text", "ordering": "0",
              "information_group": ""},
    )  # fmt: skip
    assert changed.status_code == 422
    assert "The type cannot change" in page_text(changed)


def test_another_instances_rows_are_not_found(admin):
    client, token = admin
    other = foreign_test()
    group = db.session.scalars(
        select(StorageGroup).where(StorageGroup.storage_id == other.storage_id)
        .execution_options(all_instances=True)
    ).one()  # fmt: skip
    info = group.links[0].information_id
    for path in (
        f"/admin/general/storages/{other.storage_id}",
        f"/admin/general/storages/{other.storage_id}/edit",
        f"/admin/general/storages/{other.storage_id}/delete",
        f"/admin/general/storages/{other.storage_id}/groups/{group.id}/edit",
        f"/admin/general/information/{info}/edit",
        f"/admin/general/information/{info}/delete",
    ):
        assert client.get(path).status_code == 404, path
    assert (
        client.post(
            f"/admin/general/storages/{other.storage_id}/delete", data={"csrf_token": token}
        ).status_code
        == 404
    )
    # A group of one storage is not reachable under another.
    assert (
        client.get(
            f"/admin/general/storages/{demo_storage().id}/groups/{group.id}/edit"
        ).status_code
        == 404
    )


def test_a_tenant_read_role_is_enough_to_see_but_not_to_write_roles_table():
    assert R.tenant_read("STORAGE") == "ROLE_TENANT_STORAGE_READ"
    assert R.tenant_read("INFORMATION") == "ROLE_TENANT_INFORMATION_READ"
