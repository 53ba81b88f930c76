"""Reading the EXIF facts an inspection cares about, tolerating what cameras write.

Every reader here returns ``None`` rather than raising, and appends a note to
``warnings`` when a tag was present but unusable: a damaged tag must not cost the
inspector the photo.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from PIL import ExifTags, Image

GPS = ExifTags.GPS
ORIENTATION = ExifTags.Base.Orientation


def _clean_text(value: Any) -> str | None:
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    value = value.replace("\x00", "").strip()
    return value or None


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) else None


def read_exif(image: Image.Image, warnings: list[str]) -> Image.Exif | None:
    """The image's EXIF block, or ``None`` if it is missing or unreadable."""
    try:
        return image.getexif()
    except Exception as exc:  # any parser failure means "no usable EXIF"
        warnings.append(f"EXIF unreadable: {exc.__class__.__name__}")
        return None


def read_ifd(exif: Image.Exif, ifd: int, name: str, warnings: list[str]) -> dict:
    """A sub-IFD (GPS, Exif) as a dict; empty when absent or damaged."""
    try:
        return dict(exif.get_ifd(ifd))
    except Exception as exc:
        warnings.append(f"{name} IFD unreadable: {exc.__class__.__name__}")
        return {}


def orientation(exif: Image.Exif | None, warnings: list[str]) -> int | None:
    """EXIF orientation 1–8, or ``None`` when absent or out of range."""
    if exif is None or ORIENTATION not in exif:
        return None
    value = exif.get(ORIENTATION)
    if isinstance(value, int) and 1 <= value <= 8:
        return value
    warnings.append(f"Orientation tag has an invalid value {value!r}")
    return None


def capture_time(exif: Image.Exif | None, exif_ifd: dict, warnings: list[str]) -> datetime | None:
    """When the shutter fired (DateTimeOriginal), else the file's DateTime; naive local time.

    EXIF carries no time zone unless OffsetTimeOriginal is set, so the value is the
    camera's wall clock and stays naive.
    """
    candidates = [exif_ifd.get(ExifTags.Base.DateTimeOriginal)]
    if exif is not None:
        candidates.append(exif.get(ExifTags.Base.DateTime))
    for raw in candidates:
        text = _clean_text(raw)
        if text is None:
            continue
        try:
            return datetime.strptime(text[:19], "%Y:%m:%d %H:%M:%S")
        except ValueError:
            warnings.append(f"unparseable EXIF date {text!r}")
    return None


def text_tag(exif: Image.Exif | None, tag: int) -> str | None:
    """A text tag (Make, Model) with padding and NULs removed."""
    return None if exif is None else _clean_text(exif.get(tag))


def _degrees(dms: Any) -> float | None:
    """Degrees from an EXIF (deg, min, sec) triple.

    Handles whole minutes with seconds and the decimal-minute form some cameras
    write (Kodak, Nikon D70s: ``(43, 47.135666, 0)``). Any 0/0 (NaN) part means
    the camera had no fix, so the whole value is unknown.
    """
    if not isinstance(dms, tuple | list) or not 1 <= len(dms) <= 3:
        return None
    parts = [_finite(part) for part in dms]
    if any(part is None or part < 0 for part in parts):
        return None
    parts += [0.0] * (3 - len(parts))
    deg, minutes, seconds = parts
    if minutes >= 60 or seconds >= 60:
        return None
    return deg + minutes / 60 + seconds / 3600


def gps_position(gps: dict, warnings: list[str]) -> tuple[float | None, float | None, float | None]:
    """Decimal ``(lat, lon, alt)`` from a GPS IFD; ``(None, None, None)`` without a fix.

    The hemisphere comes only from the Ref tags (a longitude of 0°30′W is written
    as positive degrees with Ref ``W``). A missing or unknown Ref makes the
    position unknown rather than guessed. Altitude is negative below sea level
    (AltitudeRef 1) and is dropped on its own if unusable.
    """
    if not gps or GPS.GPSLatitude not in gps or GPS.GPSLongitude not in gps:
        return None, None, None
    lat = _degrees(gps.get(GPS.GPSLatitude))
    lon = _degrees(gps.get(GPS.GPSLongitude))
    lat_ref = (_clean_text(gps.get(GPS.GPSLatitudeRef)) or "").upper()
    lon_ref = (_clean_text(gps.get(GPS.GPSLongitudeRef)) or "").upper()
    if lat is None or lon is None or lat_ref not in ("N", "S") or lon_ref not in ("E", "W"):
        warnings.append("GPS tags present but no usable position")
        return None, None, None
    if lat > 90 or lon > 180:
        warnings.append("GPS position out of range")
        return None, None, None
    lat = -lat if lat_ref == "S" else lat
    lon = -lon if lon_ref == "W" else lon
    return lat, lon, _altitude(gps, warnings)


def _altitude(gps: dict, warnings: list[str]) -> float | None:
    if GPS.GPSAltitude not in gps:
        return None
    alt = _finite(gps.get(GPS.GPSAltitude))
    if alt is None:
        warnings.append("GPS altitude unusable")
        return None
    ref = gps.get(GPS.GPSAltitudeRef)
    if isinstance(ref, bytes):
        ref = ref[:1] == b"\x01"
    return -alt if ref in (1, True) else alt
