"""The API definition of /ogc: linked from the landing page, valid OpenAPI 3.0, and true.

"True" is held path by path: every documented path answers with a body its documented
schema accepts, every documented parameter is accepted, every documented login works.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import urlsplit

import pytest
from openapi_schema_validator import OAS30ReadValidator, oas30_format_checker
from openapi_spec_validator import OpenAPIV30SpecValidator, validate
from sqlalchemy import select

from server.core.extensions import db
from server.network.layers import LAYERS
from server.network.models import Parcel
from server.permits.collection import SOURCE as PERMITS
from tests.support.databases import PASSWORD
from tests.support.permits import apply

OPENAPI = "application/vnd.oai.openapi+json;version=3.0"
#: Every collection and its filters: the layers, and the collections other domains serve.
FILTERS = {**{name: layer.filters for name, layer in LAYERS.items()}, PERMITS.name: PERMITS.filters}
PATHS = ["/", "/api", "/conformance", "/collections"] + [
    path for name in FILTERS
    for path in (f"/collections/{name}", f"/collections/{name}/items", f"/collections/{name}/items/{{featureId}}")
]
BROWSER = "text/html,application/xhtml+xml,*/*;q=0.8"


@pytest.fixture
def spec(client, auth) -> dict:
    return client.get("/ogc/api", headers=auth["clerk"]).get_json(force=True)


def _rels(doc) -> dict:
    return {link["rel"]: link for link in doc["links"]}


def _local(href: str) -> str:
    parts = urlsplit(href)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _resolve(spec, param: dict) -> dict:
    if "$ref" in param:
        return spec["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
    return param


def _items_parameters(spec, layer: str) -> dict:
    params = [_resolve(spec, p) for p in spec["paths"][f"/collections/{layer}/items"]["get"]["parameters"]]
    return {p["name"]: p for p in params}


def _example(schema: dict) -> str:
    """A value the parameter's schema allows, as it goes in a query string."""
    if "enum" in schema:
        return str(schema["enum"][0])
    return {"integer": "1", "number": "1.5", "boolean": "true"}.get(schema["type"], "x")


def test_landing_page_links_the_api_definition(client, auth):
    rels = _rels(client.get("/ogc/", headers=auth["clerk"]).get_json())
    assert rels["service-desc"]["type"] == OPENAPI
    assert urlsplit(rels["service-desc"]["href"]).path == "/ogc/api"
    assert rels["service-doc"]["type"] == "text/html"
    assert _local(rels["service-doc"]["href"]) == "/ogc/api?f=html"
    assert {"self", "alternate", "conformance", "data"} <= set(rels)


@pytest.mark.parametrize("rel", ["service-desc", "service-doc"])
def test_api_definition_answers_in_the_type_its_link_names(client, auth, rel):
    """/req/core/api-definition-success: GET the href with Accept set to the link's type."""
    link = _rels(client.get("/ogc/", headers=auth["clerk"]).get_json())[rel]
    r = client.get(_local(link["href"]), headers={**auth["clerk"], "Accept": link["type"]})
    assert r.status_code == 200
    assert r.headers["Content-Type"].split(";")[0] == link["type"].split(";")[0]
    if rel == "service-desc":
        assert r.headers["Content-Type"] == OPENAPI
        assert r.get_json(force=True)["openapi"].startswith("3.0.")


def test_definition_is_valid_openapi_3_0(spec):
    validate(spec, cls=OpenAPIV30SpecValidator)
    assert spec["openapi"].startswith("3.0.")
    assert spec["servers"][0]["url"].endswith("/ogc")


def test_definition_documents_exactly_the_paths_served(spec):
    assert sorted(spec["paths"]) == sorted(PATHS)


@pytest.mark.parametrize("layer", list(FILTERS))
def test_items_parameters_are_the_query_the_server_parses(spec, layer):
    params = _items_parameters(spec, layer)
    assert set(params) == {"bbox", "limit", "offset", "cursor", "f", "crs", "bbox-crs", *FILTERS[layer]}
    assert params["crs"]["schema"]["enum"][0] == "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    assert all(p["in"] == "query" for p in params.values())
    assert (params["bbox"]["style"], params["bbox"]["explode"]) == ("form", False)
    assert params["limit"]["schema"] == {"type": "integer", "default": 100, "minimum": 1, "maximum": 5000}


@pytest.mark.parametrize("layer", list(FILTERS))
def test_every_documented_parameter_is_accepted(client, auth, spec, layer):
    """Each filter with a value its schema allows, all at once: the server takes them all.

    A ``cursor`` is taken only as a ``next`` link carries it (tests/network/test_paging.py).
    """
    params = _items_parameters(spec, layer)
    query = {name: _example(p["schema"]) for name, p in params.items()
             if name not in ("bbox", "f", "limit", "cursor")}
    r = client.get(f"/ogc/collections/{layer}/items", query_string={**query, "bbox": "-180,-90,180,90"},
                   headers=auth["clerk"])
    assert r.status_code == 200, r.get_json()


def test_a_filter_value_outside_the_documented_enum_is_400(client, auth, spec):
    assert "teapot" not in _items_parameters(spec, "findings")["source"]["schema"]["enum"]
    r = client.get("/ogc/collections/findings/items?source=teapot", headers=auth["clerk"])
    assert r.status_code == 400
    assert list(r.get_json()["error"]["details"]["fields"]["query"]) == ["source"]


@pytest.fixture
def city_with_a_permit(client, auth, seeded_city):
    """The demo city, and a permit on one of its parcels (its 200 parcels have none)."""
    apply(client, auth, db.session.scalar(select(Parcel.id).order_by(Parcel.id).limit(1)))


@pytest.mark.parametrize("path", PATHS)
def test_every_documented_path_answers_as_documented(client, auth, spec, city_with_a_permit, path):
    """/req/oas30/oas-impl: the JSON of each path is valid against the schema it documents."""
    url = "/ogc" + path
    if "{featureId}" in path:
        first = client.get(url.rsplit("/", 1)[0] + "?limit=1", headers=auth["clerk"]).get_json()["features"][0]
        url = url.replace("{featureId}", str(first["id"]))
    r = client.get(url, headers=auth["clerk"])
    assert r.status_code == 200
    documented = spec["paths"][path]["get"]["responses"]
    content = documented["200"]["content"]
    assert r.headers["Content-Type"] in content
    assert {"302", "400", "401", "500"} <= set(documented)
    schema = {**content[r.headers["Content-Type"]]["schema"], "components": spec["components"]}
    OAS30ReadValidator(schema, format_checker=oas30_format_checker).validate(r.get_json(force=True))


def test_missing_feature_is_a_documented_404(client, auth, spec):
    assert "404" in spec["paths"]["/collections/parcels/items/{featureId}"]["get"]["responses"]
    assert client.get("/ogc/collections/parcels/items/99999", headers=auth["clerk"]).status_code == 404


def test_every_operation_needs_one_of_the_documented_logins(spec):
    schemes = spec["components"]["securitySchemes"]
    assert {(s["type"], s.get("scheme") or s.get("in")) for s in schemes.values()} == {
        ("http", "bearer"), ("http", "basic"), ("apiKey", "cookie")}
    assert spec["security"] == [{name: []} for name in schemes]


@pytest.mark.parametrize("scheme", ["bearer", "basic", "session"])
def test_each_documented_login_is_accepted(app, auth, spec, scheme):
    client = app.test_client()
    headers = {}
    if scheme == "bearer":
        headers = auth["clerk"]
    elif scheme == "basic":
        headers = {"Authorization": "Basic " + base64.b64encode(f"clerk1:{PASSWORD}".encode()).decode()}
    else:
        assert client.post("/login", data={"username": "clerk1", "password": PASSWORD}).status_code == 302
        assert client.get_cookie(spec["components"]["securitySchemes"]["session"]["name"]) is not None
    assert client.get("/ogc/api", headers=headers).status_code == 200


@pytest.mark.parametrize("query, headers", [("?f=html", {}), ("", {"Accept": BROWSER})])
def test_html_definition_is_swagger_ui_over_the_json(client, auth, query, headers):
    r = client.get(f"/ogc/api{query}", headers={**auth["clerk"], **headers})
    assert r.status_code == 200 and r.mimetype == "text/html"
    page = r.get_data(as_text=True)
    # The page names the definition; a static script (no inline script: CSP) starts Swagger UI on it.
    assert re.search(r'data-definition="[^"]*/ogc/api\?f=json"', page)
    # Swagger UI comes from this server, not a CDN.
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', page)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    [starter] = [a for a in assets if a.endswith("api_docs.js")]
    assert "SwaggerUIBundle" in client.get(starter).get_data(as_text=True)
    for asset in assets:
        assert asset.startswith("/") and client.get(asset).status_code == 200, asset


def test_items_paths_give_limit_by_reference_with_its_default_and_maximum(app, spec):
    """GDAL 3.8+ (and the QGIS on it) size their pages from a ``$ref`` to ``limit`` with
    ``schema/default`` and ``schema/maximum``: min(max(1000, default), maximum). An
    inline parameter leaves them at 10 features a request."""
    limit = spec["components"]["parameters"]["limit"]
    assert limit["in"] == "query" and limit["name"] == "limit"
    assert limit["schema"]["default"] == app.config["LATERAL_PAGE_DEFAULT"]
    assert limit["schema"]["maximum"] == app.config["LATERAL_PAGE_MAX"]
    for name in LAYERS:
        params = spec["paths"][f"/collections/{name}/items"]["get"]["parameters"]
        assert {"$ref": "#/components/parameters/limit"} in params, name
        assert not [p for p in params if p.get("name") == "limit"], name
    gdal_page = min(max(1000, limit["schema"]["default"]), limit["schema"]["maximum"])
    assert gdal_page == 1000
