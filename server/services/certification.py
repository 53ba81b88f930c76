"""The superintendent's certification of the clear-water survey, for the Utility Commission.

:func:`survey_figures` gathers what the page states (from the survey service and the
notices and violations tables); :func:`render_certification` prints it with reportlab:
title, municipality and date, the certifying superintendent, the counts, the parcels in
violation, and a map of the city with each parcel coloured by its survey state (drawn
on the page with the letter map's projection, no tile server).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from io import BytesIO
from xml.sax.saxutils import escape

import shapely
from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
from sqlalchemy import distinct, func, select

from server.extensions import db
from server.models import ClearWaterFinding, Notice, Parcel, Violation
from server.notices.documents import Municipality
from server.notices.parcel_map import _draw_geometry, _north_arrow, _Projector, _scale_bar
from server.services import survey
from server.services.notices import rulebook


@dataclass(frozen=True)
class SurveyFigures:
    parcels: int
    surveyed: int
    access_refused: int
    clear_water_found: int
    by_state: list[dict]  # survey states with label, colour, count
    violations_by_rule: list[dict]  # rule_id, section, count (open)
    notices_by_state: list[tuple[str, int]]
    in_violation: list[dict]  # parcel_number, site_address, owner, rule_id, section


def survey_figures() -> SurveyFigures:
    """The counts and the list of parcels in violation, as the database holds them now."""
    progress = survey.progress()
    # Counted from the violations, not the map state: a notice or a finding outranks it there.
    access_refused = db.session.scalar(select(func.count(distinct(Violation.parcel_id))).where(
        Violation.rule_id == survey.ACCESS_RULE, Violation.status == "open"))
    # Counted from the findings, not the map state: a later state (a notice mailed) outranks it there.
    clear_water = db.session.scalar(select(func.count(distinct(ClearWaterFinding.parcel_id))).where(
        ClearWaterFinding.connected_to_sanitary == "yes"))
    notices = db.session.execute(select(Notice.state, func.count()).group_by(Notice.state)
                                 .order_by(Notice.state)).all()
    rows = db.session.execute(
        select(Parcel.parcel_number, Parcel.site_address, Parcel.owner_name, Violation.rule_id, Violation.section)
        .join(Parcel, Parcel.id == Violation.parcel_id).where(Violation.status == "open")
        .order_by(Parcel.parcel_number, Violation.rule_id, Violation.section).distinct()).all()
    return SurveyFigures(
        parcels=progress["parcels"], surveyed=progress["surveyed"], access_refused=access_refused,
        clear_water_found=clear_water, by_state=progress["by_state"],
        violations_by_rule=progress["violations_by_rule"], notices_by_state=[tuple(r) for r in notices],
        in_violation=[{"parcel_number": r[0], "site_address": r[1] or "", "owner": r[2] or "",
                       "rule_id": r[3], "section": r[4] or ""} for r in rows],
    )


def city_map_parcels() -> list[tuple[object, str, bool]]:
    """(geometry, survey state key, has an open violation) of every parcel."""
    in_violation = select(Violation.parcel_id).where(Violation.status == "open")
    stmt = select(func.ST_AsBinary(Parcel.geom), survey.state_expression(), Parcel.id.in_(in_violation))
    rows = db.session.execute(stmt).all()
    geoms = shapely.from_wkb([bytes(r[0]) for r in rows]) if rows else []
    return [(g, r[1], bool(r[2])) for g, r in zip(geoms, rows, strict=True)]


class CityMap(Flowable):
    """Every parcel filled with its survey state's colour; open violations outlined in red."""

    def __init__(self, parcels, legend: list[dict], width: float, height: float):
        super().__init__()
        self.parcels, self.legend, self.width, self.height = parcels, legend, width, height

    def draw(self):
        c, w, h = self.canv, self.width, self.height
        c.setStrokeColorRGB(0.4, 0.4, 0.4)
        c.rect(0, 0, w, h)
        if not self.parcels:
            c.drawCentredString(w / 2, h / 2, "no parcels")
            return
        legend_h = self._legend(c, w)
        proj = _Projector(shapely.total_bounds([g for g, _, _ in self.parcels]), 4, legend_h + 16, w - 8,
                          h - legend_h - 20)
        colour = {s["key"]: colors.HexColor(s["colour"]) for s in self.legend}
        for geom, state, violating in sorted(self.parcels, key=lambda p: p[2]):
            fill = colour.get(state, colors.lightgrey)
            stroke = (0.8, 0.1, 0.1) if violating else (0.35, 0.35, 0.35)
            _draw_geometry(c, geom, proj, (stroke, (fill.red, fill.green, fill.blue), 0.9 if violating else 0.2, ()))
        _scale_bar(c, proj, 6, legend_h + 6, w / 4)
        _north_arrow(c, w - 12, h - 16)

    def _legend(self, c, w: float) -> float:
        """The legend along the bottom, wrapped to the frame's width; returns its height."""
        entries = [*self.legend, {"label": "open violation (red outline)", "colour": "#cc1a1a"}]
        x, y, row = 6.0, 4.0, 11.0
        c.setFont("Helvetica", 7)
        placed = []
        for s in entries:
            width = 12 + c.stringWidth(s["label"], "Helvetica", 7) + 10
            if x + width > w - 4:
                x, y = 6.0, y + row
            placed.append((x, y, s))
            x += width
        top = y + row
        for x, y, s in placed:
            c.setFillColor(colors.HexColor(s["colour"]))
            c.rect(x, top - y - 8, 7, 7, stroke=0, fill=1)
            c.setFillColor(colors.black)
            c.drawString(x + 10, top - y - 7, s["label"])
        return top


def render_certification(figures: SurveyFigures, parcels, certifier: str, on: date) -> bytes:
    """The certification as PDF bytes (US Letter)."""
    municipality = Municipality.from_rulebook(rulebook())
    styles = getSampleStyleSheet()
    body, small = styles["BodyText"], styles["BodyText"].clone("small", fontSize=8, leading=10)
    out = BytesIO()
    doc = SimpleDocTemplate(out, pagesize=LETTER, leftMargin=0.8 * inch, rightMargin=0.8 * inch,
                            topMargin=0.7 * inch, bottomMargin=0.7 * inch,
                            title=f"{municipality.name}: certification of the clear-water survey",
                            author=certifier)
    grid = TableStyle([("FONT", (0, 0), (-1, -1), "Helvetica", 9), ("FONT", (0, 0), (-1, 0), "Helvetica-Bold", 9),
                       ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
                       ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f1f3f4")]),
                       ("VALIGN", (0, 0), (-1, -1), "TOP")])

    def table(header, rows, widths=None):
        return Table([header, *rows], colWidths=widths, style=grid, repeatRows=1, hAlign="LEFT")

    pct = f" ({100 * figures.surveyed / figures.parcels:.1f} %)" if figures.parcels else ""
    story = [
        Paragraph(escape(municipality.name), styles["Heading3"]),
        Paragraph("Certification of the clear-water survey", styles["Title"]),
        Paragraph(escape(f"To the {municipality.commission}. {municipality.utility}, {municipality.ordinance}."), body),
        Paragraph(f"Date: {on.strftime('%B %-d, %Y')}", body),
        Spacer(0, 8),
        table(["Survey", "Parcels"], [
            ["Parcels in the city", f"{figures.parcels:,}"],
            ["Surveyed", f"{figures.surveyed:,}{pct}"],
            ["Access refused", f"{figures.access_refused:,}"],
            ["With clear-water connections found", f"{figures.clear_water_found:,}"],
        ], [3.6 * inch, 1.4 * inch]),
        Spacer(0, 8),
        CityMap(parcels, figures.by_state, 6.9 * inch, 3.6 * inch),
        Spacer(0, 8),
        table(["Open violations by rule", "Section", "Count"],
              [[v["rule_id"], v["section"] or "", f"{v['count']:,}"] for v in figures.violations_by_rule]
              or [["none", "", "0"]], [3.0 * inch, 2.6 * inch, 0.8 * inch]),
        Spacer(0, 8),
        table(["Notices by state", "Count"], [[s, f"{n:,}"] for s, n in figures.notices_by_state]
              or [["none", "0"]], [3.0 * inch, 0.8 * inch]),
        Spacer(0, 10),
        Paragraph("Parcels in violation", styles["Heading3"]),
        table(["Parcel number", "Site address", "Owner", "Rule", "Section"],
              [[r["parcel_number"], Paragraph(escape(r["site_address"]), small), Paragraph(escape(r["owner"]), small),
                r["rule_id"], Paragraph(escape(r["section"]), small)] for r in figures.in_violation]
              or [["none", "", "", "", ""]],
              [1.3 * inch, 1.6 * inch, 1.7 * inch, 1.3 * inch, 1.0 * inch]),
        Spacer(0, 18),
        Paragraph("I certify that the figures above are those recorded in the utility's survey records "
                  f"on {on.strftime('%B %-d, %Y')}.", body),
        Spacer(0, 26),
        Paragraph("______________________________", body),
        Paragraph(escape(f"{certifier}, {municipality.superintendent_title}"), body),
    ]
    def footer(canvas, doc_):
        canvas.setFont("Helvetica", 7)
        canvas.drawString(doc_.leftMargin, 0.45 * inch,
                          f"{municipality.name} · certification of the clear-water survey · {on.isoformat()}")
        canvas.drawRightString(LETTER[0] - doc_.rightMargin, 0.45 * inch, f"page {doc_.page}")

    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return out.getvalue()


def certify(certifier: str, on: date) -> bytes:
    """The certification PDF of the survey as it stands, signed by ``certifier``."""
    return render_certification(survey_figures(), city_map_parcels(), certifier, on)
