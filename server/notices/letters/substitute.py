"""The notice of substitute service: the one page sent by first-class mail and posted at
the premises after certified mail came back refused or unclaimed, with the poster's
certificate, and a PS Form 3817 certificate of mailing for the first-class piece.

Not a reprint of the certified letter (that one says "CERTIFIED MAIL" and gives dates that
no longer apply): it names the original notice, says why it is sent again, and gives the
dates that now apply (from the last substitute step, as the clock counts them). Text
from the database goes into ReportLab ``Paragraph`` markup escaped, never as markup.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table

from server.notices.letters.documents import Addressee, Municipality
from server.notices.letters.texts import notice_cited


def _day(d: date) -> str:
    return f"{d:%A, %B} {d.day}, {d.year}"


@dataclass(frozen=True)
class SubstituteNotice:
    """What the notice of substitute service says; plain values the server fills in.

    Attributes:
        notice_mailed_on, notice_article_number: the certified notice it stands for.
        came_back, came_back_on: ``refused`` or ``unclaimed``, and the day.
        remailed_on, posted_on: the substitute steps, when recorded (None: not yet).
        served_on: the day service was complete (the later step), else None.
        deadline: the last day to act counted from ``served_on``, else None.
        appeal_days: the days to appeal under § 315-21H (None: the kind has none).
        appeal_due: the last day to appeal counted from ``served_on``, else None.
    """

    municipality: Municipality
    addressee: Addressee
    site_address: str
    parcel_number: str
    title: str
    notice_mailed_on: date
    notice_article_number: str
    came_back: str
    came_back_on: date
    remailed_on: date | None = None
    posted_on: date | None = None
    served_on: date | None = None
    deadline: date | None = None
    appeal_days: int | None = None
    appeal_due: date | None = None


def _p(text: str, style) -> Paragraph:
    return Paragraph(escape(text), style)


def _dates(n: SubstituteNotice) -> list[str]:
    if n.served_on is None:
        lines = ["The time to act, and to appeal, counts from the day the later of this notice's first-class "
                 "mailing and its posting at the premises is done, not from the date of the certified letter."]
    else:
        lines = [f"Service was complete on {_day(n.served_on)}, the later of this notice's first-class mailing "
                 "and its posting at the premises. The time to act, and to appeal, counts from that day, not "
                 "from the date of the certified letter."]
    if n.deadline is not None:
        lines.append(f"The last day to act is {_day(n.deadline)}.")
    if n.appeal_days is not None:
        lines.append(f"You may file a written appeal with the {n.municipality.commission} within "
                     f"{n.appeal_days} days of that day"
                     + (f", on or before {_day(n.appeal_due)}" if n.appeal_due else "")
                     + ", setting forth in detail the facts supporting it (§ 315-21H).")
    return lines


def render_substitute_notice(n: SubstituteNotice) -> bytes:
    """The one-page notice (with the poster's certificate), then the PS 3817 sheet."""
    styles = getSampleStyleSheet()
    body, bold, small = styles["BodyText"], styles["Heading4"], styles["Italic"]
    m, a = n.municipality, n.addressee
    to_lines = (*a.names, *a.street_lines, f"{a.city} {a.state} {a.zip_code}")
    story = [_p(m.return_address[0], bold), *(_p(line, body) for line in m.return_address[1:]),
             Spacer(1, 0.15 * inch), _p("FIRST-CLASS MAIL AND POSTED AT THE PREMISES", bold),
             Spacer(1, 0.1 * inch), *(_p(line, body) for line in to_lines), Spacer(1, 0.2 * inch),
             _p(f"Notice of {n.title.lower()}: sent again because the certified letter did not reach you", bold),
             _p(f"Property: {n.site_address}, parcel {n.parcel_number}", body),
             _p(f"The {m.commission} sent you {notice_cited(n.notice_mailed_on, n.notice_article_number)}. "
                f"The certified letter came back {n.came_back} on {_day(n.came_back_on)}, so it did not serve "
                "the notice. A copy of it is enclosed (or, on the premises, attached). It is served on you now "
                "by first-class mail and by posting at the premises.", body)]
    story += [_p(line, body) for line in _dates(n)]
    story += [_p(f"Questions: {m.phone}", body), Spacer(1, 0.25 * inch),
              _p("Certificate of posting (completed by the person who posts this notice)", bold),
              Table([["Posted at", n.site_address], ["Posted by (name)", ""], ["Date", ""], ["Time", ""],
                     ["Photo reference", ""], ["Signature", ""]],
                    colWidths=[1.6 * inch, 4.6 * inch], rowHeights=0.32 * inch,
                    style=[("LINEBELOW", (1, 1), (1, -1), 0.5, "black"), ("FONTSIZE", (0, 0), (-1, -1), 9)]),
              PageBreak(),
              _p("Certificate of Mailing (PS Form 3817)", bold),
              _p("Present this sheet with the first-class piece at the post office; the postal clerk postmarks "
                 "it. It proves the day the notice was mailed. (For several pieces at once, PS Form 3665 lists "
                 "them on one firm sheet.)", small),
              Spacer(1, 0.2 * inch), _p("From:", bold), *(_p(line, body) for line in m.return_address),
              Spacer(1, 0.2 * inch), _p("To:", bold), *(_p(line, body) for line in to_lines),
              Spacer(1, 0.3 * inch),
              Table([["Postmark here", ""]], colWidths=[2.0 * inch, 2.0 * inch], rowHeights=1.5 * inch,
                    style=[("BOX", (0, 0), (0, 0), 0.75, "black"), ("VALIGN", (0, 0), (0, 0), "TOP"),
                           ("FONTSIZE", (0, 0), (-1, -1), 8)])]
    buf = io.BytesIO()
    SimpleDocTemplate(buf, pagesize=LETTER, title="Notice by first-class mail and posting", author=m.name,
                      creator="Lateral", invariant=1, topMargin=0.6 * inch, bottomMargin=0.6 * inch).build(story)
    return buf.getvalue()
