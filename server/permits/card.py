"""The permit card posted at the site: number, parcel, address, work, conditions, the
inspection line and a QR code of the permit's URL (ReportLab; escaped text only)."""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.graphics.barcode import qr
from reportlab.graphics.shapes import Drawing
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table

from server.core import city
from server.core.errors import LateralError
from server.network.models import Parcel
from server.permits.models import Permit

KIND_WORDS = {"new_connection": "New building sewer connection (§ 315-11A, E)",
              "lateral_repair": "Building sewer repair or replacement",
              "tap": "Tap on the public sewer (§ 315-13B(1))",
              "excavation": "Excavation in the street (§ 315-13A(1))",
              "abandonment": "Abandonment and capping of the lateral (§ 315-12E)"}
#: Printed once issued: before, there is no permit to post.
PRINTABLE = ("issued", "scheduled", "inspection_requested", "passed", "failed", "connected", "closed")


def _qr(url: str, size: float = 1.6 * inch) -> Drawing:
    widget = qr.QrCodeWidget(url)
    x0, y0, x1, y1 = widget.getBounds()
    drawing = Drawing(size, size, transform=[size / (x1 - x0), 0, 0, size / (y1 - y0), 0, 0])
    drawing.add(widget)
    return drawing


def conditions(permit: Permit) -> list[str]:
    """What the work must meet, each with its section (the rulebook's)."""
    rulebook = city.current().rulebook
    section = lambda rule_id, default: rulebook.rule(rule_id).get("section", default)  # noqa: E731
    sdr = rulebook.rule("LATERAL-SDR26")
    test = rulebook.section("permits").get("test", {})
    out = [f"Connection: {permit.connection_size_in:g}-inch {permit.connection_kind}, as permitted "
           f"({section('TAP-PERMIT', '§ 315-13B(1)')})."]
    if permit.kind in ("new_connection", "lateral_repair"):
        out += [f"Pipe: ASTM D3034 SDR {sdr.get('sdr', 26):g} {sdr.get('material', 'PVC')} "
                f"({section('LATERAL-SDR26', '§ 315-13C(3)')}).",
                f"Tracer wire in a PVC conduit to the surface at the exterior wall "
                f"({section('TRACER-WIRE', '§ 315-13C(3)')}).",
                f"A backflow prevention valve ({section('BACKFLOW-VALVE', '§ 315-12D')}).",
                f"Test: air at {test.get('air_psi', 5)} psi or water at a {test.get('water_head_ft', 10)} ft head, "
                f"held {test.get('minutes', 15)} minutes ({test.get('section', 'SPS 382.21')})."]
    if permit.kind in ("new_connection", "tap", "excavation"):
        out.append(f"No street opening for a tap while the ground is frozen ({section('TAP-FROZEN', '§ 315-13A(3)')}).")
        layer = rulebook.rule("EXCAVATION").get("backfill_layer_max_in", 6)
        out.append(f"Barricades and night warning lights; backfill in compacted layers of at most {layer} inches "
                   f"({section('EXCAVATION', '§ 315-13A')}).")
    out.append(f"Do not backfill before the inspection ({section('LATERAL-INSPECT', '§ 315-13C(2)')}).")
    if permit.kind in ("new_connection", "tap", "lateral_repair"):
        out.append(f"The connection is made under the Commission's supervision "
                   f"({section('CONNECT-SUPERVISED', '§ 315-13E')}).")
    return out


def render(permit: Permit, parcel: Parcel, url: str) -> bytes:
    """The card as PDF bytes.

    Raises:
        LateralError: ``invalid_transition`` for a permit not issued (nothing to post).
    """
    if permit.state not in PRINTABLE:
        raise LateralError("invalid_transition", f"permit {permit.number} is {permit.state}: a card is printed "
                                                 "once it is issued",
                           {"state": permit.state, "event": "card", "allowed_events": []})
    rulebook = city.current().rulebook
    municipality = rulebook.municipality
    phone = rulebook.section("permits").get("inspection_phone") or municipality.get("phone", "")
    styles = getSampleStyleSheet()
    p = lambda text, style="BodyText": Paragraph(escape(str(text)), styles[style])  # noqa: E731
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=LETTER, title=f"Permit {permit.number}",
                            leftMargin=0.75 * inch, rightMargin=0.75 * inch, topMargin=0.75 * inch)
    head = Table([[[p(municipality.get("name", ""), "Title"), p(municipality.get("utility", "")),
                    p(f"PERMIT {permit.number}", "Heading1"), p(KIND_WORDS.get(permit.kind, permit.kind), "Heading3")],
                   _qr(url)]], colWidths=[5.0 * inch, 2.0 * inch])
    facts = [
        ("Parcel", parcel.parcel_number), ("Address", parcel.site_address or ""),
        ("Work", permit.work_description or KIND_WORDS.get(permit.kind, permit.kind)),
        ("Applicant", permit.applicant_name),
        ("Plumber", f"{permit.plumber_name}, WI license {permit.plumber_license}"),
        ("Issued", permit.issued_on.isoformat() if permit.issued_on else ""),
        ("Expires", permit.expires_on.isoformat() if permit.expires_on else ""),
        ("Work day", permit.work_on.isoformat() if permit.work_on else "to be scheduled"),
    ]
    story = [head, Spacer(1, 0.2 * inch),
             Table([[p(k, "Heading4"), p(v)] for k, v in facts], colWidths=[1.3 * inch, 5.7 * inch]),
             Spacer(1, 0.15 * inch), p("Conditions", "Heading2")]
    story += [p(f"• {line}") for line in conditions(permit)]
    story += [Spacer(1, 0.2 * inch), p(f"Call for the inspection before backfill: {phone}", "Heading2"),
              p(f"Post this card at the site. Scan the code for the permit's record: {url}")]
    doc.build(story)
    return buffer.getvalue()
