// The map of today's parcels and the network around them (Leaflet, vendored by the
// server at /static/web/vendor/leaflet/). The basemap URL is configuration; without
// one the network is drawn on a plain ground, which is all a basement offers anyway.
import * as db from "../db.js";
import { h } from "../dom.js";

const STYLE = {
  parcels: { color: "#6b7a8a", weight: 1, fillColor: "#dfe6ee", fillOpacity: 0.6 },
  assigned: { color: "#12355b", weight: 3, fillColor: "#f0b429", fillOpacity: 0.55 },
  done: { color: "#1f7a4d", weight: 3, fillColor: "#7fd1a3", fillOpacity: 0.55 },
  mains: { color: "#2a6fdb", weight: 4 },
  laterals: { color: "#8a4fff", weight: 2.5, dashArray: "6 4" },
  "tracer-wires": { color: "#c2410c", weight: 1, dashArray: "2 4" },
};

/**
 * Draw the map into `el`.
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
  for (const name of ["tracer-wires", "laterals", "mains"]) {
    L.geoJSON({ type: "FeatureCollection", features: byLayer[name] || [] }, { style: STYLE[name], interactive: false }).addTo(map);
  }
  L.geoJSON({ type: "FeatureCollection", features: byLayer.manholes || [] }, {
    pointToLayer: (_f, latlng) => L.circleMarker(latlng, { radius: 5, color: "#12355b", weight: 2, fillColor: "#fff", fillOpacity: 1 }),
    interactive: false,
  }).addTo(map);
  L.geoJSON({ type: "FeatureCollection", features: byLayer.taps || [] }, {
    pointToLayer: (_f, latlng) => L.circleMarker(latlng, { radius: 4, color: "#8a4fff", weight: 2, fillColor: "#8a4fff", fillOpacity: 1 }),
    interactive: false,
  }).addTo(map);
  const bounds = focus.length ? L.featureGroup(focus).getBounds() : parcels.getBounds();
  if (bounds.isValid()) map.fitBounds(bounds, { padding: [30, 30], maxZoom: 18 });
  else map.setView([44.3, -91.5], 14);
  const legend = L.control({ position: "bottomleft" });
  legend.onAdd = () => {
    const div = L.DomUtil.create("div", "legend");
    div.append(h("span", { class: "sw assigned" }), "To inspect ", h("span", { class: "sw done" }), "Done ",
      h("span", { class: "ln mains" }), "Main ", h("span", { class: "ln laterals" }), "Lateral ",
      h("span", { class: "dot" }), "Tap");
    return div;
  };
  legend.addTo(map);
  return map;
}
