"""What a photo says about itself: format, size, orientation, time, camera, position."""

from __future__ import annotations

import warnings as pywarnings
from dataclasses import dataclass, field
from datetime import datetime
from os import PathLike

from PIL import ExifTags, Image, UnidentifiedImageError

from server.field.photos import exif as exif_tags
from server.field.photos._pillow import register_heif
from server.field.photos.errors import PhotoRejected

# Orientations 5–8 store the picture rotated a quarter turn: width and height swap.
_QUARTER_TURNS = {5, 6, 7, 8}


@dataclass(frozen=True)
class PhotoInfo:
    """Facts read from a photo's header and EXIF.

    Attributes:
        format: Pillow's name for the format found in the content (``JPEG``,
            ``HEIF``, ``TIFF``, ``PNG``...), whatever the file is called.
        width: Width as the photo should be shown, after EXIF orientation.
        height: Height as the photo should be shown, after EXIF orientation.
        orientation: EXIF orientation 1–8, or ``None`` when absent.
        captured_at: DateTimeOriginal (else DateTime), camera wall-clock, naive.
        make: Camera maker.
        model: Camera model.
        lat: Decimal degrees, south negative; ``None`` without a usable fix.
        lon: Decimal degrees, west negative; ``None`` without a usable fix.
        alt: Metres, below sea level negative; ``None`` when absent or unusable.
        warnings: Metadata that was present but could not be read.
    """

    format: str
    width: int
    height: int
    orientation: int | None = None
    captured_at: datetime | None = None
    make: str | None = None
    model: str | None = None
    lat: float | None = None
    lon: float | None = None
    alt: float | None = None
    warnings: tuple[str, ...] = field(default=())

    @property
    def has_gps(self) -> bool:
        """True when the photo carries a usable position."""
        return self.lat is not None and self.lon is not None


def open_image(path: str | PathLike) -> Image.Image:
    """Open a photo by its content; ``not_an_image`` if Pillow does not know it.

    Pillow's own decompression-bomb error can fire here (it checks at open); it is
    reported with our stable code.
    """
    register_heif()
    try:
        with pywarnings.catch_warnings():
            # The pixel limit is ours to enforce (validate_photo); do not let
            # Pillow's warning escalate or spam the log.
            pywarnings.simplefilter("ignore", Image.DecompressionBombWarning)
            return Image.open(path)
    except Image.DecompressionBombError as exc:
        raise PhotoRejected("decompression_bomb", "the image declares too many pixels") from exc
    except (UnidentifiedImageError, SyntaxError, ValueError) as exc:
        raise PhotoRejected("not_an_image", "the file is not an image") from exc
    except (OSError, EOFError) as exc:
        # A header cut off before the size is known.
        raise PhotoRejected("truncated", "the image file is incomplete") from exc


def inspect_photo(path: str | PathLike) -> PhotoInfo:
    """Read a photo's header and EXIF without decoding its pixels.

    Damaged EXIF never fails the photo: whatever could be read is returned and the
    rest is listed in ``warnings``.

    Raises:
        PhotoRejected: ``not_an_image`` when the content is not a known image.
    """
    notes: list[str] = []
    with open_image(path) as image:
        exif = exif_tags.read_exif(image, notes)
        gps = exif_ifd = {}
        if exif is not None:
            gps = exif_tags.read_ifd(exif, ExifTags.IFD.GPSInfo, "GPS", notes)
            exif_ifd = exif_tags.read_ifd(exif, ExifTags.IFD.Exif, "Exif", notes)
        orientation = exif_tags.orientation(exif, notes)
        lat, lon, alt = exif_tags.gps_position(gps, notes)
        width, height = image.size
        if orientation in _QUARTER_TURNS:
            width, height = height, width
        return PhotoInfo(
            format=image.format or "unknown",
            width=width,
            height=height,
            orientation=orientation,
            captured_at=exif_tags.capture_time(exif, exif_ifd, notes),
            make=exif_tags.text_tag(exif, ExifTags.Base.Make),
            model=exif_tags.text_tag(exif, ExifTags.Base.Model),
            lat=lat,
            lon=lon,
            alt=alt,
            warnings=tuple(notes),
        )
