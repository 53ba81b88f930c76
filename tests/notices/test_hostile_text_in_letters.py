"""Text from the database is printed in a letter as written, never read as markup."""

from __future__ import annotations

import io

import pdfplumber

from server.core.extensions import db
from tests.support.notices import add_parcel, add_violation, draft_one, walk

HOSTILE = ["Smith & <Sons", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>"]


def test_owner_and_address_markup_reach_the_letter_as_written(client, auth, tmp_path):
    parcel = add_parcel(owner=HOSTILE[0])
    parcel.site_address = f'<img src="{tmp_path}/x.png"/> 7 {HOSTILE[2]}'
    add_violation(parcel, message=HOSTILE[1])
    db.session.flush()
    notice = walk(client, auth, draft_one(client, auth)["id"], "mailed")

    r = client.get(f"/api/v1/notices/{notice['id']}/letter.pdf", headers=auth["clerk"])

    assert r.status_code == 200
    with pdfplumber.open(io.BytesIO(r.data)) as pdf:
        text = " ".join(" ".join((p.extract_text() or "") for p in pdf.pages).split())
    assert HOSTILE[0] in text
    assert f'<img src="{tmp_path}/x.png"/> 7 {HOSTILE[2]}' in text
