"""The superintendent's certification of the clear-water survey, for the Utility Commission.

:func:`survey_figures` gathers what the page states (from the survey service and the
notices and violations tables); :func:`render_certification` prints it with reportlab:
title, municipality and date, the certifying superintendent, the counts, the parcels in
violation, and a map of the city with each parcel coloured by its survey state (drawn
on the page with the letter map's projection, no tile server).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from io import BytesIO
from xml.sax.saxutils import escape

import shapely
from reportlab.lib import colors
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle
from sqlalchemy import func, select

from server.core.extensions import db
from server.network.framing import city_frame
from server.network.models import ClearWaterFinding, Parcel, Street
from server.notices.clock import rulebook
from server.notices.kinds import CLEAR_WATER_KINDS, KINDS
from server.notices.letters.documents import Municipality
from server.notices.letters.parcel_map import (
    STYLES,
    _draw_geometry,
    _north_arrow,
    _Projector,
    _scale_bar,
    draw_line_label,
)
from server.notices.models import Notice
from server.office import survey
from server.rules.models import Violation

#: Kinds of notice under Art. I (1976), the article whose survey this certifies.
ART_I_KINDS = tuple(k.id for k in KINDS.values() if k.survey)
#: Rules whose violations are Art. I findings: a clear-water connection or a refused survey.
ART_I_RULES = tuple(sorted({rule for k in KINDS.values() if k.survey for rule in k.drawn_by}))
SOURCE_WORDS = {"roof_downspout": "roof downspout", "foundation_drain": "foundation drain",
                "sump_pump": "sump pump", "yard_drain": "yard drain", "other": "other clear water"}


@dataclass(frozen=True)
class SurveyFigures:
    """What the certification states. Each count is the length of the list it heads, so
    a count and its list cannot disagree.

    Attributes:
        parcels: Parcels in the city.
        surveyed: Parcels surveyed (any visit recorded).
        by_state: Survey states with label, colour and count (the map's legend).
        clear_water: One row per parcel with a clear-water connection: parcel_number,
            site_address, owner, sources (what was found), section.
        access_refused: One row per parcel whose owner refused the survey.
        violations_by_rule: Open Art. I violations by rule: rule_id, section, count.
        notices_by_state: Art. I notices by state.
    """

    parcels: int
    surveyed: int
    by_state: list[dict]
    clear_water: list[dict]
    access_refused: list[dict]
    violations_by_rule: list[dict]
    notices_by_state: list[tuple[str, int]]

    @property
    def coverage(self) -> float:
        """The share of the city's parcels surveyed, 0..1."""
        return self.surveyed / self.parcels if self.parcels else 0.0

    @property
    def partial(self) -> bool:
        """Whether some parcels were not surveyed: the certification must say so."""
        return self.surveyed < self.parcels


def _parcel_rows(parcel_ids: set[int], what: dict[int, set[str]], sections: dict[int, set[str]]) -> list[dict]:
    if not parcel_ids:
        return []
    parcels = db.session.execute(
        select(Parcel.id, Parcel.parcel_number, Parcel.site_address, Parcel.owner_name)
        .where(Parcel.id.in_(parcel_ids)).order_by(Parcel.parcel_number)).all()
    return [{"parcel_id": p.id, "parcel_number": p.parcel_number, "site_address": p.site_address or "",
             "owner": p.owner_name or "",
             "sources": ", ".join(sorted(what.get(p.id, ()))), "section": "; ".join(sorted(sections.get(p.id, ())))}
            for p in parcels]


def survey_figures() -> SurveyFigures:
    """The counts and the lists of Art. I findings, as the database holds them now.

    Only Art. I findings are certified: clear-water connections (recorded sources, and
    open clear-water violations) and refused access; tap, tracer-wire, septic and other
    violations of the 2009 article are not part of this survey.
    """
    progress = survey.progress()
    what: dict[int, set[str]] = defaultdict(set)
    sections: dict[int, set[str]] = defaultdict(set)
    for parcel_id, source in db.session.execute(
            select(ClearWaterFinding.parcel_id, ClearWaterFinding.source)
            .where(ClearWaterFinding.connected_to_sanitary == "yes", ClearWaterFinding.parcel_id.is_not(None))):
        what[parcel_id].add(SOURCE_WORDS.get(source, source))
    open_art_i = db.session.execute(
        select(Violation.parcel_id, Violation.rule_id, Violation.section)
        .where(Violation.status == "open", Violation.rule_id.in_(ART_I_RULES),
               Violation.parcel_id.is_not(None))).all()
    refused: dict[int, set[str]] = defaultdict(set)
    for parcel_id, rule_id, section in open_art_i:
        if rule_id == survey.ACCESS_RULE:
            refused[parcel_id].add(section)
        else:
            what.setdefault(parcel_id, set())
            sections[parcel_id].add(section)
    connection_section = rulebook().deadline(CLEAR_WATER_KINDS[0]).get("section", "")
    for parcel_id, found in what.items():
        if not found:  # an open violation with no source recorded on the map
            found.add("clear-water connection")
        sections[parcel_id] = sections[parcel_id] or {connection_section}
    notices = db.session.execute(select(Notice.state, func.count()).where(Notice.kind.in_(ART_I_KINDS))
                                 .group_by(Notice.state).order_by(Notice.state)).all()
    return SurveyFigures(
        parcels=progress["parcels"], surveyed=progress["surveyed"], by_state=progress["by_state"],
        clear_water=_parcel_rows(set(what), what, sections),
        access_refused=_parcel_rows(set(refused), {pid: {"access refused"} for pid in refused}, refused),
        violations_by_rule=[v for v in progress["violations_by_rule"] if v["rule_id"] in ART_I_RULES],
        notices_by_state=[tuple(r) for r in notices],
    )


def city_map_parcels() -> list[tuple[object, str, bool]]:
    """(geometry, survey state key, has an open Art. I violation) of every parcel."""
    in_violation = select(Violation.parcel_id).where(Violation.status == "open", Violation.rule_id.in_(ART_I_RULES))
    stmt = select(func.ST_AsBinary(Parcel.geom), survey.state_expression(), Parcel.id.in_(in_violation))
    rows = db.session.execute(stmt).all()
    geoms = shapely.from_wkb([bytes(r[0]) for r in rows]) if rows else []
    return [(g, r[1], bool(r[2])) for g, r in zip(geoms, rows, strict=True)]


@dataclass(frozen=True)
class CityMapData:
    """What the certification's city map draws: parcels by state, named streets, and its frame.

    ``frame`` is the city's (:func:`server.network.framing.city_frame`): the service area
    or the parcels' dense core, so a stray parcel does not shrink the city to a speck.
    """

    parcels: list
    streets: list = field(default_factory=list)  # (geometry, name)
    frame: tuple[float, float, float, float] | None = None


def city_map_data() -> CityMapData:
    rows = db.session.execute(select(func.ST_AsBinary(Street.geom), Street.name)).all()
    streets = [(shapely.from_wkb(bytes(w)), name) for w, name in rows]
    frame = city_frame()
    box = (frame[0], frame[1], frame[2], frame[3]) if frame else None
    return CityMapData(city_map_parcels(), streets, box)


class CityMap(Flowable):
    """Every parcel filled with its survey state's colour; open violations outlined in red; streets named
    where their names fit."""

    def __init__(self, data: CityMapData, legend: list[dict], width: float, height: float):
        super().__init__()
        self.data, self.parcels, self.legend, self.width, self.height = data, data.parcels, legend, width, height

    def draw(self):
        c, w, h = self.canv, self.width, self.height
        c.setStrokeColorRGB(0.4, 0.4, 0.4)
        c.rect(0, 0, w, h)
        if not self.parcels:
            c.drawCentredString(w / 2, h / 2, "no parcels")
            return
        legend_h = self._legend(c, w)
        bounds = self.data.frame or shapely.total_bounds([g for g, _, _ in self.parcels])
        frame = (4, legend_h + 16, w - 8, h - legend_h - 20)
        proj = _Projector(bounds, *frame)
        c.saveState()
        clip = c.beginPath()
        clip.rect(*frame)
        c.clipPath(clip, stroke=0, fill=0)  # a parcel outside the city's frame is not drawn over the legend
        for geom, _ in self.data.streets:
            _draw_geometry(c, geom, proj, STYLES["street"])
        colour = {s["key"]: colors.HexColor(s["colour"]) for s in self.legend}
        for geom, state, violating in sorted(self.parcels, key=lambda p: p[2]):
            fill = colour.get(state, colors.lightgrey)
            stroke = (0.8, 0.1, 0.1) if violating else (0.35, 0.35, 0.35)
            _draw_geometry(c, geom, proj, (stroke, (fill.red, fill.green, fill.blue), 0.9 if violating else 0.2, ()))
        for geom, name in self.data.streets:
            draw_line_label(c, geom, name, proj, frame)
        c.restoreState()
        _scale_bar(c, proj, 6, legend_h + 6, w / 4)
        _north_arrow(c, w - 12, h - 16)

    def _legend(self, c, w: float) -> float:
        """The legend along the bottom, wrapped to the frame's width; returns its height."""
        entries = [*self.legend, {"label": "open Art. I violation (red outline)", "colour": "#cc1a1a"}]
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


def render_certification(figures: SurveyFigures, city_map: CityMapData, certifier: str, on: date) -> bytes:
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

    pct = f" ({100 * figures.coverage:.1f} %)" if figures.parcels else ""
    day = on.strftime("%B %-d, %Y")
    partial = []
    if figures.partial:
        partial = [Spacer(0, 4), Paragraph(
            f"<b>Partial survey.</b> {figures.surveyed:,} of the city's {figures.parcels:,} parcels{pct} have been "
            f"surveyed; {figures.parcels - figures.surveyed:,} have not. This certification states the results "
            "for the surveyed parcels only; it does not certify that the other parcels have no clear-water "
            "connection.", body)]

    def parcels_table(rows, what_header):
        return table(["Parcel number", "Site address", "Owner", what_header, "Section"],
                     [[escape(r["parcel_number"]), Paragraph(escape(r["site_address"]), small),
                       Paragraph(escape(r["owner"]), small), Paragraph(escape(r["sources"]), small),
                       Paragraph(escape(r["section"]), small)] for r in rows] or [["none", "", "", "", ""]],
                     [1.2 * inch, 1.5 * inch, 1.5 * inch, 1.4 * inch, 1.3 * inch])

    story = [
        Paragraph(escape(municipality.name), styles["Heading3"]),
        Paragraph("Certification of the clear-water survey", styles["Title"]),
        Paragraph(escape(f"To the {municipality.commission}. {municipality.utility}, {municipality.ordinance}, "
                         "Article I (Ord. No. 112A, 1976)."), body),
        Paragraph(f"Date: {day}", body),
        *partial,
        Spacer(0, 8),
        table(["Survey (Art. I)", "Parcels"], [
            ["Parcels in the city", f"{figures.parcels:,}"],
            ["Surveyed", f"{figures.surveyed:,}{pct}"],
            ["With clear-water connections found (listed below)", f"{len(figures.clear_water):,}"],
            ["Access refused (listed below)", f"{len(figures.access_refused):,}"],
        ], [3.9 * inch, 1.4 * inch]),
        Spacer(0, 8),
        CityMap(city_map, figures.by_state, 6.9 * inch, 3.6 * inch),
        Spacer(0, 8),
        Paragraph(f"Parcels with clear-water connections ({len(figures.clear_water):,})", styles["Heading3"]),
        parcels_table(figures.clear_water, "Found"),
        Spacer(0, 8),
        Paragraph(f"Parcels whose owners refused access to the survey ({len(figures.access_refused):,})",
                  styles["Heading3"]),
        parcels_table(figures.access_refused, "Found"),
        Spacer(0, 8),
        table(["Open Art. I violations by rule", "Section", "Count"],
              [[v["rule_id"], escape(v["section"] or ""), f"{v['count']:,}"] for v in figures.violations_by_rule]
              or [["none", "", "0"]], [3.0 * inch, 2.6 * inch, 0.8 * inch]),
        Spacer(0, 8),
        table(["Art. I notices by state", "Count"], [[s, f"{n:,}"] for s, n in figures.notices_by_state]
              or [["none", "0"]], [3.0 * inch, 0.8 * inch]),
        Spacer(0, 18),
        Paragraph("I certify that the figures and lists above are those recorded in the utility's survey records "
                  f"on {day}." + (" The survey is not complete." if figures.partial else ""), body),
        Spacer(0, 26),
        Paragraph("______________________________", body),
        Paragraph(escape(f"{certifier}, {municipality.superintendent_title}"), body),
    ]
    def footer(canvas, doc_):
        canvas.setFont("Helvetica", 7)
        canvas.drawString(doc_.leftMargin, 0.45 * inch,
                          f"{municipality.name} · certification of the clear-water survey · {on.isoformat()}"
                          + (" · PARTIAL SURVEY" if figures.partial else ""))
        canvas.drawRightString(LETTER[0] - doc_.rightMargin, 0.45 * inch, f"page {doc_.page}")

    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return out.getvalue()


def certify(certifier: str, on: date) -> bytes:
    """The certification PDF of the survey as it stands, signed by ``certifier`` (not kept:
    :func:`server.office.certificates.issue` issues and keeps one)."""
    return render_certification(survey_figures(), city_map_data(), certifier, on)
