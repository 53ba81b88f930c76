// The map of today's parcels and the network around them (Leaflet, vendored by the
// server at /static/web/vendor/leaflet/). The basemap URL is configuration; without
// one the network is drawn on a plain ground, which is all a basement offers anyway.
import * as db from "../db.js";
import { h, onRelease } from "../dom.js";

// Parcels are drawn by their state on this tablet; the network by the layer registry's
// styles (GET /api/v1/layers, kept in kv "layers" at each pull).
const STYLE = {
  parcels: { color: "#6b7a8a", weight: 1, fillColor: "#dfe6ee", fillOpacity: 0.6 },
  assigned: { color: "#12355b", weight: 4, fillColor: "#f0b429", fillOpacity: 0.85 },
  done: { color: "#1f7a4d", weight: 4, fillColor: "#7fd1a3", fillOpacity: 0.8 },
};

/** Points (taps, manholes) show from this zoom, where they no longer cover the lots. */
export const POINTS_FROM_ZOOM = 18;

/** A Leaflet GeoJSON layer of pulled features drawn in the registry's `style`: the network
 * lightly, under the parcels to inspect; a labelled layer (the streets) wide and pale with
 * its names written along it from the registry's `label_zoom`. */
function networkLayer(features, style) {
  if (style.label_field) {
    return L.geoJSON({ type: "FeatureCollection", features }, {
      style: { color: style.colour, weight: 6, opacity: 0.45 },
      interactive: false,
      onEachFeature: (f, layer) => {
        const text = f.properties[style.label_field];
        // An element, not a string: Leaflet reads a string tooltip as HTML.
        if (text) layer.bindTooltip(h("span", {}, text), { permanent: true, direction: "center", className: "map-label", interactive: false });
      },
    });
  }
  const line = { color: style.colour, weight: style.kind === "line" ? 1.5 : 1, opacity: 0.7, dashArray: style.kind === "dash" ? "2 4" : null };
  return L.geoJSON({ type: "FeatureCollection", features }, {
    style: line,
    pointToLayer: (_f, latlng) => L.circleMarker(latlng, { radius: 3, color: style.colour, weight: 1, fillColor: style.colour, fillOpacity: 0.8 }),
    interactive: false,
  });
}

/** The box of the 2nd–98th percentiles of the layers' centres (as the office maps frame
 * the city: server/network/framing.py), so one stray parcel cannot blank the view. */
export function denseBounds(layers) {
  const centres = layers.map((l) => l.getBounds().getCenter());
  if (!centres.length) return L.latLngBounds([]);
  const at = (values, q) => {
    const sorted = values.slice().sort((a, b) => a - b);
    return sorted[Math.round(q * (sorted.length - 1))];
  };
  const lats = centres.map((c) => c.lat), lngs = centres.map((c) => c.lng);
  const sw = L.latLng(at(lats, 0.02), at(lngs, 0.02)), ne = L.latLng(at(lats, 0.98), at(lngs, 0.98));
  // The parcels whose centres bound the core, whole: a single lot is framed, not its centre point.
  const inside = layers.filter((l, i) => centres[i].lat >= sw.lat && centres[i].lat <= ne.lat &&
    centres[i].lng >= sw.lng && centres[i].lng <= ne.lng);
  return L.featureGroup(inside).getBounds();
}

let personView = null; // { center, zoom } the person last moved the map on show to

/**
 * Draw the map into `el`: `{ map, fit }`, `fit({ redraw })` to call once `el` is laid out
 * on the page (null without Leaflet).
 * @param {Map<number, string>} assigned parcel id → "open" | "done"
 * @param {(parcelId: number) => void} onParcel
 */
export async function drawMap(el, assigned, onParcel) {
  if (typeof L === "undefined") {
    el.append("The map library did not load.");
    return null;
  }
  const cfg = window.lateralConfig || {};
  const map = L.map(el, { zoomControl: true, attributionControl: Boolean(cfg.basemap_url), preferCanvas: true });
  // Leaflet listens to the window (resize) for as long as the map lives: the screen
  // replacing this one (a redraw, another screen) ends it.
  onRelease(el, () => map.remove());
  // Where the person takes the map (a drag, a pinch, the zoom buttons) is kept for the
  // next redraw of Today; the moves `fit` makes itself are not theirs.
  let framing = false;
  let moving = false;
  map.on("dragstart zoomstart", () => { if (!framing) moving = true; });
  map.on("moveend", () => {
    if (!moving) return;
    moving = false;
    personView = { center: map.getCenter(), zoom: map.getZoom() };
  });
  const kept = cfg.basemap_pmtiles && window.pmtiles ? await db.kv.get("basemap") : null;
  if (kept && kept.blob) {
    // The city's PMTiles file, kept whole on the tablet (sync.js): read from IndexedDB, offline.
    const source = new window.pmtiles.FileSource(new File([kept.blob], "basemap.pmtiles"));
    window.pmtiles.leafletRasterLayer(new window.pmtiles.PMTiles(source), { maxZoom: 20, attribution: cfg.basemap_attribution || "" }).addTo(map);
  } else if (cfg.basemap_url) {
    L.tileLayer(cfg.basemap_url, { maxZoom: 20, attribution: cfg.basemap_attribution || "" }).addTo(map);
  } else {
    el.classList.add("no-basemap");
  }
  const rows = await db.all("features");
  const byLayer = {};
  for (const row of rows) (byLayer[row.layer] ||= []).push(row.feature);
  const focus = [];
  const parcels = L.geoJSON({ type: "FeatureCollection", features: byLayer.parcels || [] }, {
    style: (f) => STYLE[assigned.get(f.id) || "parcels"] || STYLE.assigned,
    onEachFeature: (f, layer) => {
      if (assigned.has(f.id)) {
        focus.push(layer);
        // An element, not a string: Leaflet reads a string tooltip as HTML.
        layer.bindTooltip(() => h("span", {}, f.properties.site_address || f.properties.parcel_number), { direction: "top" });
        layer.on("click", () => onParcel(f.id));
      }
    },
  }).addTo(map);
  const registry = ((await db.kv.get("layers")) || [])
    .filter((d) => d.style && d.pulled && d.name !== "parcels" && byLayer[d.name])
    .sort((a, b) => a.style.z - b.style.z);
  const points = [];
  for (const d of registry) {
    const layer = networkLayer(byLayer[d.name], d.style).addTo(map);
    if (d.style.kind === "point") points.push(layer);
  }
  parcels.bringToFront(); // the parcels to inspect over the network, not under it
  const labelZoom = Math.min(...registry.filter((d) => d.style.label_field).map((d) => d.style.label_zoom), 99);
  const byZoom = () => {
    const z = map.getZoom();
    for (const layer of points) {
      if (z >= POINTS_FROM_ZOOM) layer.addTo(map);
      else layer.remove();
    }
    el.classList.toggle("map-labels-hidden", z < labelZoom);
  };
  map.on("zoomend", byZoom);
  // The work (the parcels to inspect), else the city's dense core: never the extent, which
  // one stray parcel far away would turn into empty ground.
  const bounds = denseBounds(focus.length ? focus : parcels.getLayers());
  const fallback = [44.3, -91.5];
  // Leaflet measures its element. Off the page (a screen is drawn whole before it is
  // shown) it has no size, so the map starts at the middle and `fit` frames the
  // parcels once the element is on the page; on a redraw (a sync) it goes back where
  // the person had taken the map instead, if they moved it.
  const fit = ({ redraw = false } = {}) => {
    if (!redraw) personView = null;
    framing = true;
    map.invalidateSize({ pan: false });
    if (personView) map.setView(personView.center, personView.zoom, { animate: false });
    else if (bounds.isValid()) map.fitBounds(bounds, { padding: [30, 30], maxZoom: 18, animate: false });
    else map.setView(fallback, 14, { animate: false });
    framing = false;
  };
  framing = true;
  map.setView(bounds.isValid() ? bounds.getCenter() : fallback, 14, { animate: false });
  framing = false;
  byZoom();
  if (el.isConnected && el.clientWidth) fit();
  const legend = L.control({ position: "bottomleft" });
  legend.onAdd = () => {
    const div = L.DomUtil.create("div", "legend");
    div.append(h("span", { class: "sw assigned" }), "To inspect ", h("span", { class: "sw done" }), "Done ");
    for (const d of registry) {
      const key = h("span", { class: d.style.kind === "point" ? "dot" : "ln" });
      if (d.style.kind === "point") key.style.background = d.style.colour;
      else key.style.borderTop = `3px ${d.style.kind === "dash" ? "dashed" : "solid"} ${d.style.colour}`;
      div.append(key, ` ${d.style.label} `);
    }
    return div;
  };
  legend.addTo(map);
  return { map, fit };
}
