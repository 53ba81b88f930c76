"""``ogr2ogr`` with a current GDAL: the libgdal that pyogrio's wheel carries (3.12 here).

    .venv/bin/python -m bench.gdal_translate SOURCE LAYER DEST.gpkg [ogr2ogr options…]

Debian 12's ``ogr2ogr`` is GDAL 3.6.2, whose OAPIF driver asks for 10 features a page;
GDAL 3.9 and later read the page size from the API definition's ``limit`` (Lateral's: at
least 1,000). pyogrio (in requirements.txt) ships a current libgdal but no command-line
tools, so this calls ``GDALVectorTranslate``, the library function ``ogr2ogr`` itself is a
wrapper of, with the same options. Prints one JSON line: the GDAL version, the seconds
from opening the source to closing the GeoPackage, and the features written.
Credentials come from the environment as for ``ogr2ogr`` (``GDAL_HTTP_AUTH=BEARER``
with ``GDAL_HTTP_BEARER``, or ``GDAL_HTTP_AUTH=BASIC`` with ``GDAL_HTTP_USERPWD``).
"""

from __future__ import annotations

import ctypes
import json
import sqlite3
import sys
import time
from pathlib import Path

import pyogrio  # imported first: it points its libgdal at the GDAL and PROJ data it ships

GDAL_OF_VECTOR = 0x04


def _libgdal() -> ctypes.CDLL:
    libs = sorted((Path(pyogrio.__file__).parent.parent / "pyogrio.libs").glob("libgdal*.so*"))
    if not libs:
        raise SystemExit("pyogrio's wheel carries no libgdal here (a pyogrio built against a system GDAL?)")
    lib = ctypes.CDLL(str(libs[0]))
    lib.GDALAllRegister()
    lib.GDALVersionInfo.restype = ctypes.c_char_p
    lib.CPLGetLastErrorMsg.restype = ctypes.c_char_p
    lib.GDALOpenEx.restype = ctypes.c_void_p
    lib.GDALOpenEx.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.GDALVectorTranslateOptionsNew.restype = ctypes.c_void_p
    lib.GDALVectorTranslateOptionsNew.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.GDALVectorTranslateOptionsFree.argtypes = [ctypes.c_void_p]
    lib.GDALVectorTranslate.restype = ctypes.c_void_p
    lib.GDALVectorTranslate.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                        ctypes.c_void_p, ctypes.c_void_p]
    lib.GDALClose.argtypes = [ctypes.c_void_p]
    return lib


def translate(source: str, layer: str, dest: str, options: list[str]) -> dict:
    lib = _libgdal()
    argv = [*options, layer]
    c_argv = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
    start = time.perf_counter()
    src = lib.GDALOpenEx(source.encode(), GDAL_OF_VECTOR, None, None, None)
    if not src:
        raise SystemExit(f"cannot open {source}: {lib.CPLGetLastErrorMsg().decode()}")
    opts = lib.GDALVectorTranslateOptionsNew(c_argv, None)
    sources = (ctypes.c_void_p * 1)(src)
    usage_error = ctypes.c_int(0)
    out = lib.GDALVectorTranslate(dest.encode(), None, 1, sources, opts, ctypes.byref(usage_error))
    lib.GDALVectorTranslateOptionsFree(opts)
    if not out:
        raise SystemExit(f"translate failed: {lib.CPLGetLastErrorMsg().decode()}")
    lib.GDALClose(out)
    seconds = time.perf_counter() - start
    lib.GDALClose(src)
    with sqlite3.connect(dest) as gpkg:
        table = gpkg.execute("SELECT table_name FROM gpkg_contents").fetchone()[0]
        features = gpkg.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    return {"gdal": lib.GDALVersionInfo(b"RELEASE_NAME").decode(), "seconds": round(seconds, 2),
            "features": features}


def main() -> int:
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    source, layer, dest, *options = sys.argv[1:]
    print(json.dumps(translate(source, layer, dest, ["-f", "GPKG", *options])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
