/* The survey map: parcels coloured by survey state, the sewer network, search, filters
   and a parcel panel. Data comes from the JSON API, one bbox at a time; the filters are
   query parameters of the parcels layer, so the server leaves out what does not match. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("map-config").textContent);
  var stateColour = {}, stateLabel = {}, stateInk = {};
  cfg.states.forEach(function (s) {
    stateColour[s.key] = s.colour; stateLabel[s.key] = s.label; stateInk[s.key] = s.ink;
  });

  var map = L.map("map", { zoomSnap: 0.5 });
  window.lateralMapLabels.basemap(map, cfg);
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
        if (r.ok) return r.json();
        // The API's one error shape: {"error": {"code", "message", "details"}}.
        return r.json().catch(function () { return {}; }).then(function (body) {
          var err = new Error((body.error && body.error.message) || url + " answered " + r.status);
          err.status = r.status;
          throw err;
        });
      });
  }

  /* ---- filters: survey states, rule, a visit's dates and inspector ---- */
  var filterForm = document.getElementById("filters");
  var filterStatus = document.getElementById("filter-status");
  function filterParams() {
    var data = new FormData(filterForm), params = new URLSearchParams();
    var states = data.getAll("state");
    // Every state ticked is no filter at all; none ticked draws no parcel (see reload).
    if (states.length < cfg.states.length) params.set("state", states.join(","));
    ["rule", "visited_from", "visited_to", "inspector"].forEach(function (name) {
      if (data.get(name)) params.set(name, data.get(name));
    });
    return params;
  }

  /* ---- layers ---- */
  var parcels = L.geoJSON(null, {
    style: function (f) {
      var on = selected === f.id;
      // The state's pattern (its colour with marks over it: survey/_state_patterns.html).
      var state = f.properties.survey_state;
      return { color: on ? "#000" : "#555", weight: on ? 3 : 0.6, fillOpacity: 0.6,
               fillColor: stateColour[state] ? "url(#state-" + state + ")" : "#999" };
    },
    onEachFeature: function (f, layer) {
      layer.on("click", function () { showParcel(f.id); });
      // A function returning a text node: Leaflet reads a string tooltip as HTML.
      // The state in words too: the fill is not the only way to tell it.
      layer.bindTooltip(function () {
        return el("span", (f.properties.site_address || f.properties.parcel_number) + " · " +
                  (stateLabel[f.properties.survey_state] || f.properties.survey_state));
      }, { sticky: true });
    }
  });
  parcels.dataUrl = function (bbox) {
    var params = filterParams();
    return "/api/v1/survey/parcels?bbox=" + bbox + (params.toString() ? "&" + params.toString() : "");
  };

  function pointStyle(colour) {
    return function (f, latlng) {
      var c = colour;
      if (f.properties.connected_to_sanitary === "yes") c = "#d7301f";
      return L.circleMarker(latlng, { radius: 4, color: "#fff", weight: 1, fillColor: c, fillOpacity: 1 });
    };
  }

  var overlays = { "Parcels (survey state)": parcels };
  var networkLayers = [];
  var layersReady = false; // nothing is fetched by bbox before the registry says what to draw
  /* The network's layers and their styles: every layer of the registry
     (GET /api/v1/layers) that has a map style, bottom to top. */
  function addNetworkLayers(registry) {
    registry.filter(function (d) { return d.style; })
      .sort(function (a, b) { return a.style.z - b.style.z; })
      .forEach(function (d) {
        var spec = d.style;
        // A labelled layer (the streets) is the city's own basemap: drawn wide and light, named.
        var layer = spec.label_field ? window.lateralMapLabels.baseLayer(map, d) : L.geoJSON(null, {
          style: { color: spec.colour, weight: spec.kind === "area" ? 1 : 2, dashArray: spec.kind === "dash" ? "4 4" : null,
                   fillOpacity: spec.kind === "area" ? 0.08 : 0 },
          pointToLayer: pointStyle(spec.colour),
          interactive: spec.kind === "point"
        });
        layer.dataUrl = function (bbox) { return "/api/v1/" + d.name + "?limit=5000&bbox=" + bbox; };
        overlays[spec.label] = layer;
        if (spec.on) layer.addTo(map);
        networkLayers.push(layer);
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
    /* Open permits (GET /api/v1/permits?open=true), each its parcel's outline in its
       state's colour, as the sidebar's legend names them. */
    var permitColour = {};
    cfg.permit_states.forEach(function (s) { permitColour[s.key] = s.colour; });
    var permits = L.geoJSON(null, {
      style: function (f) {
        return { color: permitColour[f.properties.state] || "#000000", weight: 3, fillOpacity: 0, dashArray: "6 3" };
      },
      onEachFeature: function (f, layer) {
        layer.on("click", function () { showParcel(f.properties.parcel_id); });
        layer.bindTooltip(function () {
          return el("span", "Permit " + f.properties.number + ": " + f.properties.kind.replace(/_/g, " ") + ", " +
            f.properties.state.replace(/_/g, " "));
        });
      }
    });
    permits.dataUrl = function (bbox) { return "/api/v1/permits?open=true&limit=1000&bbox=" + bbox; };
    permits.on("add", function () { document.body.dataset.permitsLayer = "on"; });
    permits.on("remove", function () { document.body.dataset.permitsLayer = "off"; });
    overlays["Open permits"] = permits.addTo(map);
    networkLayers.push(permits);
    parcels.bringToBack();
    L.control.layers(null, overlays, { collapsed: window.matchMedia("(max-width: 1000px)").matches }).addTo(map);
  }
  parcels.addTo(map);
  L.control.scale({ imperial: true, metric: false }).addTo(map);

  /* ---- loading by bbox ---- */
  var inflight = null;
  function reload() {
    if (!layersReady) return;
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
    var noState = filterForm.querySelectorAll("input[name=state]:checked").length === 0;
    var active = filterParams().toString() !== "";
    filterStatus.textContent = "";
    var jobs = [parcels].concat(networkLayers).filter(function (l) { return map.hasLayer(l); }).map(function (layer) {
      if (layer === parcels && noState) {
        parcels.clearLayers();
        document.body.dataset.parcelsLoaded = "0";
        document.body.dataset.parcelsQuery = "none";
        filterStatus.textContent = "No survey status ticked: no parcels drawn.";
        return Promise.resolve();
      }
      var url = layer.dataUrl(bbox);
      return getJSON(url, controller.signal).then(function (data) {
        layer.clearLayers();
        layer.addData(data);
        if (layer === parcels) {
          parcels.bringToBack();
          document.body.dataset.parcelsLoaded = String(data.features.length);
          document.body.dataset.parcelsQuery = url; // what is drawn, for the tests
          var n = data.features.length;
          if (active) filterStatus.textContent = n === 1 ? "1 parcel in view matches the filters." :
            n + " parcels in view match the filters.";
        }
      }, function (err) {
        // A filter the server refuses (a range that ends before it starts) is said where it was set.
        if (layer === parcels && err.status === 422) {
          parcels.clearLayers();
          document.body.dataset.parcelsLoaded = "0";
          document.body.dataset.parcelsQuery = url;
          filterStatus.textContent = err.message;
          return;
        }
        throw err;
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
  function reloadSoon() {
    clearTimeout(timer);
    // What is in flight is for the old view or filters: drop it now, so that it can
    // neither draw stale parcels nor clear "Loading …" before the new answer comes.
    if (inflight) { inflight.abort(); inflight = null; }
    if (map.getZoom() >= cfg.min_zoom) statusLine.textContent = "Loading …";
    timer = setTimeout(reload, 150);
  }
  map.on("moveend overlayadd", reloadSoon);
  filterForm.addEventListener("change", reloadSoon);
  filterForm.addEventListener("submit", function (ev) { ev.preventDefault(); reloadSoon(); });
  // "reset" fires before the fields are reset: read them on the next turn.
  filterForm.addEventListener("reset", function () { setTimeout(reloadSoon, 0); });

  /* ---- the parcel panel ---- */
  function showParcel(id, fit) {
    selected = id;
    parcels.setStyle(parcels.options.style);
    getJSON("/api/v1/survey/parcels/" + id).then(function (p) {
      if (fit) map.fitBounds([[p.bbox[1], p.bbox[0]], [p.bbox[3], p.bbox[2]]], { maxZoom: 18, animate: false });
      renderPanel(p);
    }).catch(function () {
      panel.hidden = false;
      panel.textContent = "Could not load parcel " + id + ".";
    });
  }

  function day(iso) { return iso ? iso.slice(0, 10) : "—"; }
  function time(iso) {
    if (!iso) return "—";
    var d = new Date(iso);
    return d.toLocaleDateString("en-CA") + " " + d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  }

  var viewer = document.getElementById("photo-viewer");
  function openPhoto(photo, caption) {
    viewer.querySelector("img").src = photo.display;
    viewer.querySelector("img").alt = caption;
    viewer.querySelector(".caption span").textContent = caption;
    viewer.querySelector(".caption a").href = photo.original;
    viewer.showModal(); // Esc closes a modal dialog; so does the × and a click beside the photo
  }
  viewer.addEventListener("click", function (ev) { if (ev.target === viewer) viewer.close(); });
  viewer.addEventListener("close", function () { viewer.querySelector("img").removeAttribute("src"); });

  function photoStrip(inspection) {
    var strip = el("div", null, { class: "photos" });
    inspection.photos.forEach(function (ph) {
      var caption = ph.item_id.replace(/[._]/g, " ") + (ph.filename ? " · " + ph.filename : "");
      if (!ph.stored) {
        strip.appendChild(el("span", "photo not received yet", { class: "thumb missing", title: caption }));
        return;
      }
      var link = el("a", null, { class: "thumb", href: ph.display, title: caption, "data-sha256": ph.sha256 });
      link.appendChild(el("img", null, { src: ph.thumbnail, alt: caption, loading: "lazy" }));
      link.addEventListener("click", function (ev) { ev.preventDefault(); openPhoto(ph, caption); });
      strip.appendChild(link);
    });
    return strip;
  }

  function inspectionList(p) {
    var byUuid = {};
    p.inspections.forEach(function (i) { byUuid[i.uuid] = i; });
    var list = el("ol", null, { class: "inspections" });
    p.inspections.forEach(function (i) {
      var item = el("li", null, { "data-inspection": i.id });
      var head = el("p", null, { class: "inspection-head" });
      head.appendChild(el("strong", i.template_title));
      head.appendChild(el("span", " · " + i.inspector + " · " + time(i.finished_at) + " · "));
      head.appendChild(el("span", i.result, { class: "result " + i.result }));
      item.appendChild(head);
      if (i.failures.length) {
        item.appendChild(el("p", i.failures.map(function (f) { return f.rule_id + ": " + f.message; }).join("; "),
                            { class: "failures" }));
      }
      if (i.replaces) {
        var old = byUuid[i.replaces];
        item.appendChild(el("p", "Corrects the record of " + (old ? time(old.finished_at) : i.replaces) + ".",
                            { class: "revision" }));
      }
      if (i.superseded_by) item.appendChild(el("p", "Corrected by a later record.", { class: "revision" }));
      if (i.photos.length) item.appendChild(photoStrip(i));
      list.appendChild(item);
    });
    if (!p.inspections.length) list.appendChild(el("li", "none recorded"));
    return list;
  }

  function noticeList(p) {
    var list = el("ul", null, { class: "notices" });
    p.notices.forEach(function (n) {
      var item = el("li", null, { "data-notice": n.id });
      item.appendChild(el("strong", n.kind));
      item.appendChild(el("span", " (" + n.sections.join(", ") + ") · " + n.state.replace(/_/g, " ")));
      var dates = "mailed " + day(n.mailed_on) + " · deadline " + day(n.deadline);
      var when = el("span", dates, { class: "deadline" });
      item.appendChild(el("br"));
      item.appendChild(when);
      if (n.days_left !== null) {
        var left = n.days_left < 0 ? -n.days_left + " days past" : n.days_left === 0 ? "due today" :
          n.days_left + " days left";
        item.appendChild(el("span", " · " + left, { class: "days" + (n.overdue ? " late" : "") }));
      }
      list.appendChild(item);
    });
    if (!p.notices.length) list.appendChild(el("li", "none"));
    return list;
  }

  function renderPanel(p) {
    panel.replaceChildren();
    panel.dataset.parcelId = p.id;
    var close = el("button", "×", { type: "button", class: "close", "aria-label": "Close the panel" });
    close.addEventListener("click", function () {
      panel.hidden = true;
      selected = null;
      parcels.setStyle(parcels.options.style);
    });
    panel.appendChild(close);
    panel.appendChild(el("h2", p.site_address || "(no site address)"));
    var state = el("span", stateLabel[p.survey_state] || p.survey_state, { class: "state" });
    // Black or white, whichever reads better on the state's colour (survey.ink_on).
    state.style.background = stateColour[p.survey_state] || "#999999";
    state.style.color = stateInk[p.survey_state] || "#000000";
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
      // Two decimals at most: a length from the geometry is 32.80839894707571 ft otherwise.
      var measured = v.measured === null ? "" : " — measured " + Number(v.measured.toFixed(2)) + (v.unit ? " " + v.unit : "") +
        (v.limit === null ? "" : ", limit " + v.limit + (v.unit ? " " + v.unit : ""));
      vs.appendChild(el("li", v.rule_id + " (" + v.section + ", " + v.status + ")" + measured));
    });
    if (!p.violations.length) vs.appendChild(el("li", "none"));
    panel.appendChild(vs);
    panel.appendChild(el("h3", "Notices (" + p.notices.length + ")"));
    panel.appendChild(noticeList(p));
    var permits = p.permits || [];
    panel.appendChild(el("h3", "Permits (" + permits.length + ")"));
    var ps = el("ul", null, { class: "permits" });
    permits.forEach(function (x) {
      ps.appendChild(el("li", x.number + " · " + x.kind.replace(/_/g, " ") + " · " + x.state.replace(/_/g, " ") +
                              " (applied " + x.applied_on + (x.closed_on ? ", closed " + x.closed_on : "") + ")"));
    });
    if (!permits.length) ps.appendChild(el("li", "none"));
    panel.appendChild(ps);
    panel.appendChild(el("h3", "Inspections (" + p.inspections.length + ")" +
                         (p.inspections_scope === "own" ? " — yours" : "")));
    panel.appendChild(inspectionList(p));
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
      var streets = data.streets || [];
      if (!data.results.length && !streets.length) results.appendChild(el("li", "No street or parcel matches “" + q + "”."));
      // A street (or one block of it) first, "W Jackson St" framing the street; after the
      // parcels when a parcel's address is the query itself ("107 W River St").
      var exact = data.results.some(function (r) { return (r.site_address || "").toLowerCase() === q.toLowerCase(); });
      var streetItems = [];
      streets.forEach(function (s) {
        var item = el("li", null, { class: "street-hit" });
        var label = s.block === null ? s.name : s.block + " block of " + s.name;
        var go = el("button", label, { type: "button" });
        go.addEventListener("click", function () {
          map.fitBounds([[s.bbox[1], s.bbox[0]], [s.bbox[3], s.bbox[2]]], { padding: [20, 20], maxZoom: 18, animate: false });
        });
        item.appendChild(go);
        streetItems.push(item);
      });
      if (!exact) streetItems.forEach(function (item) { results.appendChild(item); });
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
      if (exact) streetItems.forEach(function (item) { results.appendChild(item); });
    }).catch(function () { results.appendChild(el("li", "Search failed; try again.")); });
  });

  /* ---- start ---- */
  // On a small screen the legend and the layer switcher start folded: the map is the page.
  var small = window.matchMedia("(max-width: 1000px)").matches;
  if (small) document.getElementById("map-legend").open = false;
  if (cfg.frame) {
    var e = cfg.frame;
    map.fitBounds([[e[1], e[0]], [e[3], e[2]]]);
    if (map.getZoom() < cfg.min_zoom) map.setZoom(cfg.min_zoom);
  } else {
    map.setView([44.25, -91.5], cfg.min_zoom);
  }
  // /map?parcel=<id> (the dashboard's links) opens that parcel's panel, centred on it.
  var asked = Number(new URLSearchParams(window.location.search).get("parcel"));
  if (asked) showParcel(asked, true);
  getJSON("/api/v1/layers").then(addNetworkLayers, function () {
    addNetworkLayers([]);
    statusLine.textContent = "Could not load the network's layers; parcels only.";
  }).then(function () {
    layersReady = true;
    reload();
  });
  window.lateralSurveyMap = map; // for the browser tests and the console
  window.lateralSurveyParcels = parcels;
})();
