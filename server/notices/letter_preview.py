"""A notice's letter before it is approved or mailed: the real renderer, nothing stored.

The letter is built exactly as :func:`server.notices.mailing.mail_notices` builds it,
as if it were mailed today, with a sample article number (the mailed letter gets its
own). Nothing is written: no serial is reserved, the notice is not touched.
"""

from __future__ import annotations

from server.core import settings
from server.core.errors import LateralError
from server.notices.article_numbers import build_article_number
from server.notices.clock import printed_deadline, rulebook, today
from server.notices.letters.documents import Municipality, NoticeLetter
from server.notices.letters.notice import render_letter
from server.notices.mailing import build_letter
from server.notices.models import Notice

PREVIEWED = ("draft", "approved")


def preview(notice: Notice) -> NoticeLetter:
    """The letter ``notice`` would print if it were mailed today.

    Raises:
        LateralError: ``no_preview`` for a held notice (its address cannot carry a letter)
            or one already mailed (its letter is stored: ``/api/v1/notices/<id>/letter.pdf``).
    """
    if notice.state not in PREVIEWED:
        why = (f"it is held: {notice.held_reason}" if notice.state == "held"
               else f"it is {notice.state}; a mailed notice's letter is the one stored")
        raise LateralError("no_preview", f"notice {notice.id} has no preview: {why}")
    rb = rulebook()
    mailed_on = today()
    deadline = printed_deadline(notice, mailed_on, rb)
    sample = build_article_number(1, rb.section("mail"))
    return build_letter(notice, deadline, rb, Municipality.from_rulebook(rb), mailed_on=mailed_on,
                        article_number=sample)


def preview_pdf(notice: Notice) -> bytes:
    """The previewed letter as the PDF the mailing would print."""
    return render_letter(preview(notice), rulebook(), settings.current().thumb_dir)
