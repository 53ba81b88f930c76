"""Walk an OGC API – Features layer with QGIS's OAPIF provider; print what it read as JSON.

Run by Debian's ``/usr/bin/python3`` (where ``python3-qgis`` installs QGIS's bindings),
not by the project's virtualenv: ``python3 qgis_walk.py URL LAYER PAGE_SIZE USER PASSWORD``.
The login goes through a QGIS "Basic" authentication configuration, as a GIS technician
sets one up, kept in a throw-away authentication database (``QGIS_AUTH_DB_DIR_PATH``).
"""

import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import QgsApplication, QgsAuthMethodConfig, QgsVectorLayer  # noqa: E402


def main(url: str, layer: str, page_size: str, user: str, password: str) -> None:
    app = QgsApplication([], False)
    app.initQgis()
    auth = QgsApplication.authManager()
    auth.setMasterPassword("lateral-test-master", True)
    config = QgsAuthMethodConfig("Basic")
    config.setName("lateral")
    config.setConfig("username", user)
    config.setConfig("password", password)
    assert auth.storeAuthenticationConfig(config)[0]
    uri = f"url='{url}' typename='{layer}' pageSize='{page_size}' authcfg='{config.id()}'"
    vector = QgsVectorLayer(uri, layer, "OAPIF")
    if not vector.isValid():
        print(json.dumps({"error": vector.error().summary()}))
        sys.exit(1)
    ids = [f.attribute("id") if vector.fields().indexOf("id") >= 0 else f.id() for f in vector.getFeatures()]
    print(json.dumps({"ids": ids, "feature_count": vector.featureCount()}), flush=True)
    os._exit(0)  # QGIS 3.22's exitQgis() crashes in a headless process; the walk is done


if __name__ == "__main__":
    main(*sys.argv[1:6])
