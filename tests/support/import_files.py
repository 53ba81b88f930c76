"""Small Wisconsin-schema parcel files, written with pyogrio.

Written in a child process: GDAL's GeoPackage driver crashes a process that has
SpatiaLite loaded, as the test process has.
"""

from __future__ import annotations

import zipfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

WTM = "EPSG:3071"  # Wisconsin Transverse Mercator: the files are projected, the import reprojects
ARCADIA = (-91.5010, 44.2530)

WI_PARCELS = [
    {"PARCELID": "206-00101-0000", "TAXPARCELID": "20600101", "OWNERNME1": "ANN KULIG", "OWNERNME2": None,
     "PSTLADRESS": "412 N DETTLOFF DR ARCADIA WI 54612-1123", "SITEADRESS": "412 N DETTLOFF DR",
     "PLACENAME": "CITY OF ARCADIA", "ZIPCODE": "54612", "ZIP4": "1123", "STATE": "WI", "PROPCLASS": "1",
     "IMPVALUE": 98000.0, "SCHOOLDIST": "ARCADIA"},
    {"PARCELID": "206-00102-0000", "TAXPARCELID": "20600102", "OWNERNME1": "PRIMROSE PROPERTIES LLC",
     "OWNERNME2": "C/O R HALVERSON", "PSTLADRESS": "2200 MAIN ST, LA CROSSE, WI 54601",
     "SITEADRESS": "130 E MAIN ST", "PLACENAME": "CITY OF ARCADIA", "ZIPCODE": "54612", "ZIP4": None,
     "STATE": "WI", "PROPCLASS": "2", "IMPVALUE": 240000.0, "SCHOOLDIST": "ARCADIA"},
    {"PARCELID": "206-00103-0000", "TAXPARCELID": "20600103", "OWNERNME1": "JOSEPH WEISS", "OWNERNME2": None,
     "PSTLADRESS": "711 E RIVER ST", "SITEADRESS": "711 E RIVER ST", "PLACENAME": "CITY OF ARCADIA",
     "ZIPCODE": "54612", "ZIP4": "1402", "STATE": "WI", "PROPCLASS": "1", "IMPVALUE": 0.0,
     "SCHOOLDIST": "ARCADIA"},
]


def squares(n: int, crs: str | None = WTM, size_m: float = 20.0):
    """``n`` squares side by side near Arcadia, in ``crs`` (lon/lat when None)."""
    from pyproj import Transformer
    from shapely.geometry import box

    x0, y0 = Transformer.from_crs("EPSG:4326", crs or "EPSG:4326", always_xy=True).transform(*ARCADIA)
    if crs is None or crs == "EPSG:4326":
        size_m = 0.0002
    return [box(x0 + i * size_m * 1.5, y0, x0 + i * size_m * 1.5 + size_m, y0 + size_m) for i in range(n)]


def _write(path: str, driver: str, records: list[dict], wkts: list[str], crs: str | None, lower: bool) -> None:
    import numpy as np
    import pyogrio.raw
    import shapely

    names = list(records[0])
    geoms = shapely.from_wkt(wkts)
    data = []
    for name in names:
        values = [r[name] for r in records]
        numeric = all(isinstance(v, float) for v in values if v is not None) and any(
            isinstance(v, float) for v in values)
        data.append(np.array([np.nan if v is None else v for v in values], dtype=float) if numeric
                    else np.array(values, dtype=object))
    kinds = {g.geom_type for g in geoms}
    pyogrio.raw.write(path, shapely.to_wkb(geoms), data, [n.lower() if lower else n for n in names],
                      driver=driver, crs=crs, geometry_type=kinds.pop() if len(kinds) == 1 else "Unknown",
                      layer="parcels")


def write(path: Path, records: list[dict], geoms, crs: str | None = WTM, lower: bool = False) -> Path:
    """``path`` (``.geojson``, ``.gpkg`` or ``.zip`` for a zipped shapefile) with these features."""
    path = Path(path)
    if path.suffix == ".zip":
        folder = path.with_suffix("")
        folder.mkdir(parents=True, exist_ok=True)
        target, driver = folder / "parcels.shp", "ESRI Shapefile"
    else:
        target, driver = path, {".geojson": "GeoJSON", ".gpkg": "GPKG"}[path.suffix]
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        pool.submit(_write, str(target), driver, records, [g.wkt for g in geoms], crs, lower).result()
    if path.suffix == ".zip":
        with zipfile.ZipFile(path, "w") as zf:
            for part in sorted(folder.iterdir()):
                zf.write(part, part.name)
    return path
