/* The survey map: parcels coloured by survey state, the sewer network, search and a
   parcel panel. Data comes from the JSON API, one bbox at a time. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("map-config").textContent);
  var stateColour = {}, stateLabel = {};
  cfg.states.forEach(function (s) { stateColour[s.key] = s.colour; stateLabel[s.key] = s.label; });

  var map = L.map("map", { zoomSnap: 0.5 });
  if (cfg.basemap_url) {
    L.tileLayer(cfg.basemap_url, { maxZoom: 20, attribution: cfg.basemap_attribution || "" }).addTo(map);
  }
  var statusLine = document.getElementById("map-status");
  var panel = document.getElementById("panel");
  var selected = null;

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }

  function getJSON(url, signal) {
    return fetch(url, { credentials: "same-origin", signal: signal, headers: { Accept: "application/json" } })
      .then(function (r) {
        if (!r.ok) throw new Error(url + " answered " + r.status);
        return r.json();
      });
  }

  /* ---- layers ---- */
  var parcels = L.geoJSON(null, {
    style: function (f) {
      var on = selected === f.id;
      return { color: on ? "#000" : "#555", weight: on ? 3 : 0.6, fillOpacity: 0.55,
               fillColor: stateColour[f.properties.survey_state] || "#999" };
    },
    onEachFeature: function (f, layer) {
      layer.on("click", function () { showParcel(f.id); });
      layer.bindTooltip(f.properties.site_address || f.properties.parcel_number, { sticky: true });
    }
  });
  parcels.dataUrl = function (bbox) { return "/api/v1/survey/parcels?bbox=" + bbox; };

  function pointStyle(colour) {
    return function (f, latlng) {
      var c = colour;
      if (f.properties.connected_to_sanitary === "yes") c = "#d7301f";
      return L.circleMarker(latlng, { radius: 4, color: "#fff", weight: 1, fillColor: c, fillOpacity: 1 });
    };
  }

  var overlays = { "Parcels (survey state)": parcels };
  var networkLayers = cfg.layers.map(function (spec) {
    var layer = L.geoJSON(null, {
      style: { color: spec.colour, weight: spec.kind === "area" ? 1 : 2, dashArray: spec.kind === "dash" ? "4 4" : null,
               fillOpacity: spec.kind === "area" ? 0.08 : 0 },
      pointToLayer: pointStyle(spec.colour),
      interactive: spec.kind === "point"
    });
    layer.dataUrl = function (bbox) { return "/api/v1/" + spec.name + "?limit=5000&bbox=" + bbox; };
    overlays[spec.label] = layer;
    if (spec.on) layer.addTo(map);
    return layer;
  });
  if (cfg.violations) {
    var violations = L.geoJSON(null, {
      style: { color: "#ce1256", weight: 3 },
      pointToLayer: function (f, latlng) {
        return L.circleMarker(latlng, { radius: 6, color: "#ce1256", weight: 2, fillOpacity: 0.2 });
      }
    });
    violations.dataUrl = function (bbox) { return "/api/v1/violations?status=open&limit=5000&bbox=" + bbox; };
    overlays["Open violations"] = violations.addTo(map);
    networkLayers.push(violations);
  }
  parcels.addTo(map);
  parcels.bringToBack();
  L.control.layers(null, overlays, { collapsed: false }).addTo(map);
  L.control.scale({ imperial: true, metric: false }).addTo(map);

  /* ---- loading by bbox ---- */
  var inflight = null;
  function reload() {
    if (inflight) inflight.abort();
    if (map.getZoom() < cfg.min_zoom) {
      statusLine.textContent = "Zoom in to see parcels and the network.";
      [parcels].concat(networkLayers).forEach(function (l) { l.clearLayers(); });
      document.body.dataset.parcelsLoaded = "0";
      return;
    }
    var b = map.getBounds();
    var bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(function (v) { return v.toFixed(6); }).join(",");
    var controller = new AbortController();
    inflight = controller;
    statusLine.textContent = "Loading …";
    var jobs = [parcels].concat(networkLayers).filter(function (l) { return map.hasLayer(l); }).map(function (layer) {
      return getJSON(layer.dataUrl(bbox), controller.signal).then(function (data) {
        layer.clearLayers();
        layer.addData(data);
        if (layer === parcels) {
          parcels.bringToBack();
          document.body.dataset.parcelsLoaded = String(data.features.length);
        }
      });
    });
    Promise.all(jobs).then(function () {
      if (inflight === controller) { statusLine.textContent = ""; inflight = null; }
    }).catch(function (err) {
      if (err.name === "AbortError") return;
      statusLine.textContent = "Could not load the map data; try again.";
    });
  }
  var timer = null;
  map.on("moveend overlayadd", function () {
    clearTimeout(timer);
    if (map.getZoom() >= cfg.min_zoom) statusLine.textContent = "Loading …";
    timer = setTimeout(reload, 150);
  });

  /* ---- the parcel panel ---- */
  function showParcel(id) {
    selected = id;
    parcels.setStyle(parcels.options.style);
    getJSON("/api/v1/survey/parcels/" + id).then(renderPanel).catch(function () {
      panel.hidden = false;
      panel.textContent = "Could not load parcel " + id + ".";
    });
  }

  function renderPanel(p) {
    panel.replaceChildren();
    panel.dataset.parcelId = p.id;
    panel.appendChild(el("h2", p.site_address || "(no site address)"));
    var state = el("span", stateLabel[p.survey_state] || p.survey_state, { class: "state" });
    state.style.background = stateColour[p.survey_state] || "#999";
    panel.appendChild(state);
    var facts = el("dl");
    [["Parcel", p.parcel_number], ["Owner", [p.owner_name, p.owner_name_2].filter(Boolean).join(" & ")],
     ["Mailing address", p.mailing_address]].forEach(function (pair) {
      facts.appendChild(el("dt", pair[0]));
      facts.appendChild(el("dd", pair[1] || "—"));
    });
    panel.appendChild(facts);
    panel.appendChild(el("h3", "Clear-water findings (" + p.findings.length + ")"));
    var findings = el("ul", null, { class: "findings" });
    p.findings.forEach(function (f) {
      var connected = f.connected_to_sanitary === "yes" ? "connected to the sanitary sewer" :
        f.connected_to_sanitary === "no" ? "not connected" : "connection unknown";
      findings.appendChild(el("li", f.source.replace(/_/g, " ") + ": " + connected +
        (f.observed_on ? " (" + f.observed_on + ", " + (f.method || "") + ")" : "")));
    });
    if (!p.findings.length) findings.appendChild(el("li", "none recorded"));
    panel.appendChild(findings);
    panel.appendChild(el("h3", "Violations (" + p.violations.length + ")"));
    var vs = el("ul", null, { class: "violations" });
    p.violations.forEach(function (v) {
      var measured = v.measured === null ? "" : " — measured " + v.measured + (v.unit ? " " + v.unit : "") +
        (v.limit === null ? "" : ", limit " + v.limit + (v.unit ? " " + v.unit : ""));
      vs.appendChild(el("li", v.rule_id + " (" + v.section + ", " + v.status + ")" + measured));
    });
    if (!p.violations.length) vs.appendChild(el("li", "none"));
    panel.appendChild(vs);
    panel.hidden = false;
  }

  /* ---- search ---- */
  var results = document.getElementById("search-results");
  document.getElementById("search").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = document.getElementById("search-q").value.trim();
    results.replaceChildren();
    if (!q) return;
    getJSON("/api/v1/search?q=" + encodeURIComponent(q)).then(function (data) {
      if (!data.results.length) results.appendChild(el("li", "No parcel matches “" + q + "”."));
      data.results.forEach(function (r) {
        var item = el("li");
        var go = el("button", (r.site_address || "(no address)") + " · " + r.parcel_number, { type: "button" });
        go.addEventListener("click", function () {
          // Jump, not fly: the parcel is where the clerk looks when the panel opens.
          map.fitBounds([[r.bbox[1], r.bbox[0]], [r.bbox[3], r.bbox[2]]], { maxZoom: 18, animate: false });
          showParcel(r.id);
        });
        item.appendChild(go);
        results.appendChild(item);
      });
    }).catch(function () { results.appendChild(el("li", "Search failed; try again.")); });
  });

  /* ---- start ---- */
  if (cfg.extent) {
    var e = cfg.extent;
    map.fitBounds([[e[1], e[0]], [e[3], e[2]]]);
    if (map.getZoom() < cfg.min_zoom) map.setZoom(cfg.min_zoom);
  } else {
    map.setView([44.25, -91.5], cfg.min_zoom);
  }
  reload();
  window.lateralSurveyMap = map; // for the browser tests and the console
})();
