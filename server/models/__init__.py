"""Database models. Import from here: ``from server.models import Parcel``."""

from server.models.audit import AuditChain, AuditEvent
from server.models.calendar import ElectionCalendarEntry
from server.models.certifications import SurveyCertification
from server.models.due_process import NoticeAppeal, ServiceStep
from server.models.findings import ClearWaterFinding
from server.models.inspections import (
    Assignment,
    ChecklistTemplate,
    Inspection,
    InspectionPhoto,
    Photo,
    PushRecord,
    SyncConflict,
)
from server.models.network import Lateral, Manhole, SewerMain, Tap, TracerWire
from server.models.notices import ArticleSerial, MailingBatch, Notice, NoticeViolation
from server.models.parcels import Parcel, ServiceArea
from server.models.users import ApiToken, SiteSetting, User
from server.models.violations import Violation

__all__ = [
    "ApiToken",
    "Assignment",
    "ArticleSerial",
    "AuditChain",
    "AuditEvent",
    "ChecklistTemplate",
    "ClearWaterFinding",
    "ElectionCalendarEntry",
    "Inspection",
    "InspectionPhoto",
    "Lateral",
    "MailingBatch",
    "Manhole",
    "Notice",
    "NoticeAppeal",
    "NoticeViolation",
    "Parcel",
    "Photo",
    "PushRecord",
    "ServiceArea",
    "ServiceStep",
    "SiteSetting",
    "SewerMain",
    "SurveyCertification",
    "SyncConflict",
    "Tap",
    "TracerWire",
    "User",
    "Violation",
]
