"""The owners' portal as a test drives it: the code read off a mailed letter, a lookup."""

from __future__ import annotations

import io
import re

from pypdf import PdfReader

from server.core.extensions import db
from server.notices.models import Notice

CODE = re.compile(r"\b([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})\b")


def letter_text(notice_id: int) -> str:
    notice = db.session.get(Notice, notice_id)
    assert notice is not None and notice.letter_pdf, f"notice {notice_id} has no letter"
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(notice.letter_pdf)).pages)


def code_on_letter(notice_id: int) -> str:
    """The lookup code the notice's mailed letter prints."""
    found = CODE.findall(letter_text(notice_id))
    assert len(found) == 1, found
    return found[0]


def lookup(client, code: str, parcel_number: str):
    return client.post("/api/v1/portal/lookup", json={"code": code, "parcel_number": parcel_number})


def form_token(client, path: str = "/portal/") -> str:
    """The CSRF token a page's form carries."""
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def hold_code(client) -> None:
    """Make ``client``'s session a code holder's: a notice on a fresh parcel, a code for it."""
    import time

    from server.portal.lookup import SESSION_KEY
    from server.portal.models import LookupCode
    from tests.support.notices import add_parcel

    parcel = add_parcel()
    notice = Notice(kind="CW-DISCONNECT-60", state="delivered", parcel_id=parcel.id,
                    parcel_number=parcel.parcel_number, owner_names=["ANN KULIG"], sections=["§ 315-13D"],
                    findings=[])
    db.session.add(notice)
    db.session.flush()
    code = LookupCode(notice_id=notice.id, code_sha256=f"{notice.id:064d}")
    db.session.add(code)
    db.session.flush()
    with client.session_transaction() as session:
        session[SESSION_KEY] = {"code": code.id, "notice": notice.id, "at": int(time.time())}
