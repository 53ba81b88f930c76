"""Every kind of notice, each declared once: its words, its deadline rule, the rules
whose violations draw it, its follow-up and a sample finding.

A declaration is the one place a kind lives. The model's validation, the API's
``OneOf``, the CLI's choices, drafting (which rule calls for which kind), escalation
(which kind follows which), the clock (which deadline rule) and the sample letters all
read :data:`KINDS`, as the rules engine reads ``gis/rules/registry.py``. Adding a kind
is one more :func:`declare` call here (and, if it has a new period, a ``[deadlines.*]``
table in the rulebook).

Texts are ``str.format`` templates over :func:`server.notices.letters.texts.text_fields`.
Each sentence restates the ordinance section the kind cites (``{section}``), in its
own words where they fit a letter; nothing is stated as law that the ordinance does
not say. What was found, and on what basis, comes from the notice's violations
(:mod:`server.notices.letter_findings`), not from here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NoticeKind:
    """One kind of notice.

    Attributes:
        id: Stable id (a rule id of ``ordinance/RULES.md`` where one fits).
        title: Heading of the letter.
        deadline_rule: The rulebook ``[deadlines.*]`` entry that sets the period.
        rule: What the ordinance requires, restated (the "terms" Art. I asks for).
        action: What the owner must do; the letter completes it with "no later than <date>".
        consequence: What may follow if the owner does not (may be empty).
        drawn_by: Rule ids whose open violations are drafted as this kind.
        follow_up: The kind drafted when a notice of this kind is escalated, if any.
        clear_water: A clear-water kind: its violations are connected sources, and
            drafting may choose it for them (``clear_water_kind``).
        survey: Certified with the Art. I clear-water survey (``SURVEY-CERTIFY-30``).
        appeal: Whether § 315-21H's appeal applies (it governs the 2009 article only;
            Art. I of 1976 provides no appeal of its own).
        sample: ``(finding, section)`` pairs for sample letters.
    """

    id: str
    title: str
    deadline_rule: str
    rule: str
    action: str
    consequence: str = ""
    drawn_by: tuple[str, ...] = ()
    follow_up: str | None = None
    clear_water: bool = False
    survey: bool = False
    appeal: bool = True
    sample: tuple[tuple[str, str], ...] = ()


KINDS: dict[str, NoticeKind] = {}
#: The kind a violation of a rule no kind draws becomes (§ 315-21B's written notice).
FALLBACK = "GENERAL-VIOLATION"


def declare(kind: NoticeKind) -> NoticeKind:
    """Register ``kind``; a second declaration of an id, or of a rule, is an error."""
    if kind.id in KINDS:
        raise ValueError(f"notice kind {kind.id} is declared twice")
    drawn = {rule: k.id for k in KINDS.values() for rule in k.drawn_by}
    for rule in kind.drawn_by:
        if rule in drawn:
            raise ValueError(f"rule {rule} already draws notice kind {drawn[rule]}")
    KINDS[kind.id] = kind
    return kind


declare(NoticeKind(
    id="CW-DISCONNECT-60",
    title="Notice to disconnect clear water from the sanitary sewer",
    deadline_rule="CW-DISCONNECT-60",
    rule=(
        "{section} ({ordinance}) provides that no person shall connect roof downspouts, "
        "foundation drains, sump pumps, yard drains or other sources of surface runoff or "
        "groundwater to a building sewer or building drain connected directly or indirectly to "
        "the public sewer, and that the owner or the owner's agent shall disconnect any existing "
        "connection within {days} days of written notice from the {commission}. This is that "
        "written notice."
    ),
    action="Disconnect each clear-water source named above from the building sewer",
    drawn_by=("CLEAR-WATER", "CW-DISCONNECT-60"),
    clear_water=True,
    survey=True,
    sample=(("Sump pump, on the north side of the lot: discharges to the sanitary sewer; "
             "tested with dye (positive)", "§ 315-13D"),
            ("Roof downspout, on the east side of the lot: discharges to the sanitary sewer; "
             "seen (visual check)", "§ 315-13D")),
))

declare(NoticeKind(
    id="CW-REMOVE-150",
    title="Notice to remove clear-water connections",
    deadline_rule="CW-REMOVE-150",
    rule=(
        "Article I of {ordinance} (Ord. No. 112A, 1976) provides that no person shall "
        "connect roof drains, foundation drains or sump pumps to the sanitary sewer collection "
        "system of the City, and that all persons having such connections shall remove them. "
        "It requires the {commission} to notify each owner in violation, by certified mail, "
        "of the nature of the violation, the terms of the article and the date by which the "
        "violation must be corrected. This is that notice."
    ),
    action="Remove each connection named above from the sanitary sewer",
    drawn_by=("CW-REMOVE-150",),
    clear_water=True,
    survey=True,
    appeal=False,
    sample=(("Foundation drain: discharges to the sanitary sewer; tested with smoke (positive)",
             "Art. I (Ord. 112A, 1976)"),),
))

declare(NoticeKind(
    id="HOOKUP-365",
    title="Notice to connect to the public sewer",
    deadline_rule="HOOKUP-365",
    rule=(
        "{section} ({ordinance}) requires the owner of each parcel of land within the City "
        "adjacent to a sewer main, on which exists a building where persons reside, congregate "
        "or are employed, to connect to the sewer system by installing a building sewer "
        "exclusive to that parcel within {days} days of notice in writing from the {commission}. "
        "This is that notice."
    ),
    action="Connect the building(s) on this parcel to the public sewer",
    consequence=(
        "If the connection is not made, the {commission} may cause it to be made and bill you "
        "for its cost; if the cost is not paid within {bill_unpaid_days} days, it shall be "
        "assessed as a special tax against the property. The full cost of making the "
        "connection is the property owner's responsibility. In the alternative, the City may "
        "impose a penalty of ${penalty_per_day} per day for the period the violation continues, "
        "after 10 days' written notice ({section})."
    ),
    # § 315-11C/D: a septic system in the service area is answered by connecting to the
    # sewer, 365 days from written notice, not by a 30-day general notice.
    drawn_by=("HOOKUP-365", "EXCLUSIVE-SEWER", "SEPTIC-IN-AREA"),
    follow_up="HOOKUP-PENALTY",
    sample=(("The property has a building and no building sewer connected to the public sewer "
             "main that passes it", "§ 315-11D"),),
))

declare(NoticeKind(
    id="HOOKUP-PENALTY",
    title="Ten days' notice: penalty for failing to connect to the public sewer",
    deadline_rule="HOOKUP-PENALTY",
    rule=(
        "You were notified in writing under {section} ({ordinance}) to connect the "
        "property to the public sewer, and the connection has not been made. {section} allows "
        "the City, in the alternative to making the connection, to impose a penalty for the "
        "period the violation continues, after 10 days' written notice to an owner failing to "
        "connect. This is that written notice."
    ),
    action="Connect the building(s) on this parcel to the public sewer",
    consequence=(
        "After that date the City may impose a penalty of ${penalty_per_day} per day for the "
        "period the violation continues ({section}); if it is not paid, it shall be assessed as "
        "a special tax against the property under § 281.45, Wis. Stats."
    ),
    sample=(("No building sewer connects the property to the public sewer 365 days after the "
             "written notice to connect", "§ 315-11D"),),
))

declare(NoticeKind(
    id="SURVEY-ACCESS",
    title="Notice to allow inspection for the clear-water survey",
    deadline_rule="SURVEY-ACCESS",
    rule=(
        "Article I of {ordinance} (Ord. No. 112A, 1976) requires all property owners to "
        "permit the {superintendent_title} and the Superintendent's agents access to their "
        "property for the survey of roof drains, foundation drains and sump pumps connected "
        "to the sanitary sewer; a refusal to permit such access is a violation of that article. "
        "§ 315-12F requires every user to permit the City, the Utility Commission or its duly "
        "authorized agent, at all reasonable hours of the day, to enter the premises or building "
        "to examine the pipes and fixtures and the manner in which the drains and sewer "
        "connections operate."
    ),
    action="Call {phone} and allow the survey of the property",
    drawn_by=("SURVEY-ACCESS",),
    survey=True,
    sample=(("Access to the property for the clear-water survey was refused", "Art. I (1976); § 315-12F"),),
))

declare(NoticeKind(
    id=FALLBACK,
    title="Notice of violation of the sewer use ordinance",
    deadline_rule="CORRECTION",
    rule=(
        "{section} ({ordinance}; Ord. No. 153, 2009) requires a person found violating a provision "
        "of that ordinance to be served with a written notice stating the nature of the violation and providing a "
        "reasonable time for its correction, and requires the violation to cease permanently "
        "within the time the notice states. This is that notice; the violations are described "
        "above."
    ),
    action="Correct each violation described above",
    sample=(("The building sewer has no backflow prevention valve", "§ 315-12D"),
            ("The tracer wire of the building sewer is not brought to the surface at the "
             "exterior wall of the house", "§ 315-13C(3)")),
))

declare(NoticeKind(
    id="LATERAL-REPAIR",
    title="Notice to repair the building sewer",
    deadline_rule="CORRECTION",
    rule=(
        "§ 315-12B ({ordinance}) requires the property owner to maintain the building sewer from the street "
        "main to the house free of defective conditions, at the owner's expense, and § 315-12C requires every "
        "user to keep the building sewer in good repair. {section} requires a person found violating the "
        "ordinance to be served with a written notice stating the nature of the violation and providing a "
        "reasonable time for its correction. This is that notice; the defects a camera inspection of the "
        "building sewer recorded are described above."
    ),
    action="Repair each defect of the building sewer described above, under a lateral repair permit",
    # A repair notice is drafted from a plumber's CCTV report reviewed by the superintendent
    # (server/portal/cctv.py), whose observations become violations of this rule id.
    drawn_by=("LATERAL-REPAIR",),
    sample=(("Fracture, multiple (FM), grade 4, 23.5 feet from the cleanout at 12 o'clock, seen in a camera "
             "inspection of the building sewer", "§ 315-12B"),),
))

#: Every kind's id, in declaration order.
NOTICE_KINDS: tuple[str, ...] = tuple(KINDS)


#: The clear-water kinds, the default first (drafting's ``clear_water_kind`` choices).
CLEAR_WATER_KINDS: tuple[str, ...] = tuple(k.id for k in KINDS.values() if k.clear_water)
#: Rules whose violations are clear-water connections.
CLEAR_WATER_RULES: frozenset[str] = frozenset(r for k in KINDS.values() if k.clear_water for r in k.drawn_by)


def notice_kind(kind_id: str) -> NoticeKind:
    """The declaration of ``kind_id``; KeyError names the known kinds."""
    try:
        return KINDS[kind_id]
    except KeyError:
        raise KeyError(f"no notice kind {kind_id!r}; known: {', '.join(KINDS)}") from None


#: The Art. I kind (Ord. 112A, 1976): it reaches roof drains, foundation drains and sump
#: pumps only, not yard drains or other sources (those fall under § 315-13D).
ART_ONE_KIND = "CW-REMOVE-150"
ART_ONE_SOURCES = frozenset({"roof_downspout", "foundation_drain", "sump_pump"})


def kind_for_rule(rule_id: str) -> str:
    """The kind a violation of ``rule_id`` is drafted as (the fallback if no kind names it)."""
    for kind in KINDS.values():
        if rule_id in kind.drawn_by:
            return kind.id
    return FALLBACK


def follow_ups() -> dict[str, str]:
    """Kind → the kind escalation drafts after it."""
    return {k.id: k.follow_up for k in KINDS.values() if k.follow_up}


for _kind in KINDS.values():
    if _kind.follow_up is not None and _kind.follow_up not in KINDS:
        raise ValueError(f"notice kind {_kind.id} follows up with unknown kind {_kind.follow_up}")
