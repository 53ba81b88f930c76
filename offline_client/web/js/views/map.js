// The map of today's parcels and the network around them (Leaflet, vendored by the
// server at /static/web/vendor/leaflet/). The basemap URL is configuration; without
// one the network is drawn on a plain ground, which is all a basement offers anyway.
import * as db from "../db.js";
import { h, onRelease } from "../dom.js";

// Parcels are drawn by their state on this tablet; the network by the layer registry's
// styles (GET /api/v1/layers, kept in kv "layers" at each pull).
const STYLE = {
  parcels: { color: "#6b7a8a", weight: 1, fillColor: "#dfe6ee", fillOpacity: 0.6 },
  assigned: { color: "#12355b", weight: 3, fillColor: "#f0b429", fillOpacity: 0.55 },
  done: { color: "#1f7a4d", weight: 3, fillColor: "#7fd1a3", fillOpacity: 0.55 },
};

/** A Leaflet GeoJSON layer of pulled features drawn in the registry's `style`. */
function networkLayer(features, style) {
  const line = { color: style.colour, weight: style.kind === "line" ? 3 : 1.5, dashArray: style.kind === "dash" ? "2 4" : null };
  return L.geoJSON({ type: "FeatureCollection", features }, {
    style: line,
    pointToLayer: (_f, latlng) => L.circleMarker(latlng, { radius: 4, color: style.colour, weight: 2, fillColor: style.colour, fillOpacity: 1 }),
    interactive: false,
  });
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
  if (cfg.basemap_url) {
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
  for (const d of registry) networkLayer(byLayer[d.name], d.style).addTo(map);
  const bounds = focus.length ? L.featureGroup(focus).getBounds() : parcels.getBounds();
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
