"""Photo evidence: what a photo says about itself, whether to accept it, and the
smaller images the office and the field client show.

Pure functions over a file path: no Flask, no database, no storage.
"""

from server.field.photos.derivatives import DISPLAY_MAX_PX, THUMBNAIL_MAX_PX, make_derivatives
from server.field.photos.errors import PhotoDecodeFailed, PhotoRejected
from server.field.photos.inspect import PhotoInfo, inspect_photo
from server.field.photos.isolated import DEFAULT_MEMORY_LIMIT_MIB as DEFAULT_DECODE_MEMORY_MIB
from server.field.photos.validate import DEFAULT_MAX_BYTES, DEFAULT_MAX_PIXELS, SUPPORTED_FORMATS, validate_photo

__all__ = [
    "DEFAULT_DECODE_MEMORY_MIB",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PIXELS",
    "DISPLAY_MAX_PX",
    "SUPPORTED_FORMATS",
    "THUMBNAIL_MAX_PX",
    "PhotoDecodeFailed",
    "PhotoInfo",
    "PhotoRejected",
    "inspect_photo",
    "make_derivatives",
    "validate_photo",
]
