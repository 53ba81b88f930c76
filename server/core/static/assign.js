/* Assign work: pick parcels on a map (click, a drawn rectangle or polygon, or every parcel
   the filters show) into the assignment form's list. The form itself is a plain POST with
   the session's CSRF token; this script only fills its parcel_id fields and says what it
   is doing. Text from the server is set with textContent, never as markup. */
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("assign-config").textContent);
  var stateColour = {};
  cfg.states.forEach(function (s) { stateColour[s.key] = s.colour; });

  var map = L.map("map", { zoomSnap: 0.5, doubleClickZoom: false });
  window.lateralMapLabels.basemap(map, cfg);
  L.control.scale({ imperial: true, metric: false }).addTo(map);
  var statusLine = document.getElementById("map-status");
  var filterForm = document.getElementById("filters");
  var filterStatus = document.getElementById("filter-status");
  var list = document.getElementById("selected");
  var countLine = document.getElementById("selected-count");
  var assignForm = document.getElementById("assign-form");

  function el(tag, text, attrs) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    return node;
  }

  /* ---- the selection: parcel id -> {number, address}, mirrored in the form's list ---- */
  var selection = {};
  Array.prototype.forEach.call(list.querySelectorAll("li[data-parcel]"), function (li) {
    selection[li.dataset.parcel] = { number: li.querySelector(".pn").textContent, li: li };
  });

  function say() {
    var n = Object.keys(selection).length;
    countLine.textContent = n + (n === 1 ? " parcel" : " parcels") + " selected on the map.";
    document.body.dataset.selected = String(n);
  }

  function add(id, props) {
    id = String(id);
    if (selection[id]) return false;
    var li = el("li", null, { "data-parcel": id });
    li.appendChild(el("input", null, { type: "hidden", name: "parcel_id", value: id }));
    li.appendChild(el("span", props.parcel_number, { "class": "pn" }));
    li.appendChild(document.createTextNode(" " + (props.site_address || "") + " "));
    var remove = el("button", "Remove", { type: "button", "class": "remove quiet" });
    remove.appendChild(el("span", " " + props.parcel_number, { "class": "visually-hidden" }));
    li.appendChild(remove);
    list.appendChild(li);
    selection[id] = { number: props.parcel_number, li: li };
    return true;
  }

  function drop(id) {
    id = String(id);
    if (!selection[id]) return;
    selection[id].li.remove();
    delete selection[id];
  }

  function restyle() { parcels.setStyle(style); }

  list.addEventListener("click", function (ev) {
    var button = ev.target.closest("button.remove");
    if (!button) return;
    var li = button.closest("li");
    var next = li.nextElementSibling || li.previousElementSibling;
    drop(li.dataset.parcel);
    restyle();
    say();
    // Keep the keyboard user's place: the next Remove button, else the count.
    if (next) next.querySelector("button").focus(); else countLine.focus();
  });
  countLine.tabIndex = -1;

  /* ---- the parcels layer, filtered as the survey map's ---- */
  function style(f) {
    var on = !!selection[String(f.id)];
    return { color: on ? "#000" : "#555", weight: on ? 3.5 : 0.6, fillOpacity: on ? 0.85 : 0.45,
             fillColor: stateColour[f.properties.survey_state] || "#999" };
  }
  var mode = null; // null, "rectangle" or "polygon"
  var parcels = L.geoJSON(null, {
    style: style,
    onEachFeature: function (f, layer) {
      layer.on("click", function () {
        if (mode) return; // a click while drawing is a corner, not a pick
        if (selection[String(f.id)]) drop(f.id); else add(f.id, f.properties);
        restyle();
        say();
      });
      layer.bindTooltip(function () {
        return el("span", f.properties.site_address || f.properties.parcel_number);
      }, { sticky: true });
    }
  }).addTo(map);

  function filterParams() {
    var data = new FormData(filterForm), params = new URLSearchParams();
    var states = data.getAll("state");
    if (states.length < cfg.states.length) params.set("state", states.join(","));
    ["rule", "visited_from", "visited_to"].forEach(function (name) {
      if (data.get(name)) params.set(name, data.get(name));
    });
    return params;
  }

  var inflight = null;
  function reload() {
    if (inflight) inflight.abort();
    if (map.getZoom() < cfg.min_zoom) {
      parcels.clearLayers();
      statusLine.textContent = "Zoom in to see parcels.";
      document.body.dataset.parcelsLoaded = "0";
      return;
    }
    if (filterForm.querySelectorAll("input[name=state]:checked").length === 0) {
      parcels.clearLayers();
      filterStatus.textContent = "No survey status ticked: no parcels shown.";
      document.body.dataset.parcelsLoaded = "0";
      return;
    }
    var b = map.getBounds();
    var bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(function (v) { return v.toFixed(6); }).join(",");
    var params = filterParams();
    var controller = new AbortController();
    inflight = controller;
    statusLine.textContent = "Loading …";
    fetch("/api/v1/survey/parcels?bbox=" + bbox + (params.toString() ? "&" + params : ""),
          { credentials: "same-origin", signal: controller.signal, headers: { Accept: "application/json" } })
      .then(function (r) {
        return r.json().then(function (body) {
          if (!r.ok) throw new Error((body.error && body.error.message) || "the server answered " + r.status);
          return body;
        });
      })
      .then(function (data) {
        parcels.clearLayers();
        parcels.addData(data);
        var n = data.features.length;
        filterStatus.textContent = params.toString() ? (n === 1 ? "1 parcel in view matches." : n + " parcels in view match.") : "";
        statusLine.textContent = "";
        document.body.dataset.parcelsLoaded = String(n);
        inflight = null;
      }, function (err) {
        if (err.name === "AbortError") return;
        parcels.clearLayers();
        statusLine.textContent = "";
        filterStatus.textContent = err.message;
        document.body.dataset.parcelsLoaded = "0";
      });
  }
  /* ---- the city's own base under the parcels: the streets, named (map_labels.js) ---- */
  var bases = [];
  function bboxOfView() {
    var b = map.getBounds();
    return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map(function (v) { return v.toFixed(6); }).join(",");
  }
  function loadBases() {
    var far = map.getZoom() < cfg.min_zoom, bbox = bboxOfView();
    bases.forEach(function (layer) {
      if (far) { layer.clearLayers(); return; }
      fetch(layer.dataUrl(bbox), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : { features: [] }; })
        .then(function (data) { layer.clearLayers(); layer.addData(data); }, function () { /* the base is a help, not the work */ });
    });
  }
  fetch("/api/v1/layers", { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (r) { return r.ok ? r.json() : []; })
    .then(function (registry) {
      registry.filter(function (d) { return d.style && d.style.label_field; }).forEach(function (d) {
        bases.push(window.lateralMapLabels.baseLayer(map, d).addTo(map));
      });
      loadBases();
    }, function () { /* no base: the parcels alone still work */ });

  var timer = null;
  function reloadSoon() { clearTimeout(timer); timer = setTimeout(function () { reload(); loadBases(); }, 150); }
  map.on("moveend", reloadSoon);
  filterForm.addEventListener("change", reloadSoon);
  filterForm.addEventListener("submit", function (ev) { ev.preventDefault(); reloadSoon(); });

  /* ---- selecting many: every parcel shown, or those whose centre lies in a drawn area ---- */
  function selectWhere(inside) {
    var added = 0;
    parcels.eachLayer(function (layer) {
      var f = layer.feature;
      if (inside(layer.getBounds().getCenter()) && add(f.id, f.properties)) added += 1;
    });
    restyle();
    say();
    statusLine.textContent = added === 1 ? "1 parcel added." : added + " parcels added.";
    return added;
  }

  document.getElementById("select-shown").addEventListener("click", function () {
    selectWhere(function () { return true; });
  });
  document.getElementById("clear-selection").addEventListener("click", function () {
    Object.keys(selection).forEach(drop);
    restyle();
    say();
  });

  function insidePolygon(points) {
    return function (p) {
      var inside = false;
      for (var i = 0, j = points.length - 1; i < points.length; j = i++) {
        var a = points[i], b = points[j];
        if ((a.lat > p.lat) !== (b.lat > p.lat) &&
            p.lng < (b.lng - a.lng) * (p.lat - a.lat) / (b.lat - a.lat) + a.lng) inside = !inside;
      }
      return inside;
    };
  }

  var buttons = { rectangle: document.getElementById("draw-rectangle"), polygon: document.getElementById("draw-polygon") };
  var sketch = null, corners = [], start = null;

  function stopDrawing(message) {
    if (sketch) { map.removeLayer(sketch); sketch = null; }
    corners = []; start = null; mode = null;
    map.dragging.enable();
    map.getContainer().classList.remove("drawing");
    Object.keys(buttons).forEach(function (k) { buttons[k].setAttribute("aria-pressed", "false"); });
    if (message) statusLine.textContent = message;
  }

  function startDrawing(kind) {
    var again = mode === kind;
    stopDrawing();
    if (again) { statusLine.textContent = "Drawing cancelled."; return; }
    mode = kind;
    buttons[kind].setAttribute("aria-pressed", "true");
    map.getContainer().classList.add("drawing");
    if (kind === "rectangle") {
      map.dragging.disable();
      statusLine.textContent = "Drag across the map to draw the rectangle (Esc cancels).";
    } else {
      statusLine.textContent = "Click each corner; click the first again or press Enter to finish (Esc cancels).";
    }
  }
  buttons.rectangle.addEventListener("click", function () { startDrawing("rectangle"); });
  buttons.polygon.addEventListener("click", function () { startDrawing("polygon"); });

  map.on("mousedown", function (ev) {
    if (mode !== "rectangle") return;
    start = ev.latlng;
    sketch = L.rectangle(L.latLngBounds(start, start), { color: "#d95f02", weight: 2, fillOpacity: 0.1, interactive: false }).addTo(map);
  });
  map.on("mousemove", function (ev) {
    if (mode === "rectangle" && start) sketch.setBounds(L.latLngBounds(start, ev.latlng));
    if (mode === "polygon" && sketch && corners.length) sketch.setLatLngs(corners.concat([ev.latlng]));
  });
  map.on("mouseup", function (ev) {
    if (mode !== "rectangle" || !start) return;
    var bounds = L.latLngBounds(start, ev.latlng);
    stopDrawing();
    var n = selectWhere(function (p) { return bounds.contains(p); });
    statusLine.textContent = "Rectangle drawn: " + (n === 1 ? "1 parcel added." : n + " parcels added.");
  });

  function finishPolygon() {
    var points = corners.slice();
    stopDrawing();
    if (points.length < 3) { statusLine.textContent = "A polygon needs at least three corners; nothing added."; return; }
    var n = selectWhere(insidePolygon(points));
    statusLine.textContent = "Polygon drawn: " + (n === 1 ? "1 parcel added." : n + " parcels added.");
  }
  map.on("click", function (ev) {
    if (mode !== "polygon") return;
    if (corners.length >= 3) {
      var first = map.latLngToContainerPoint(corners[0]);
      if (first.distanceTo(map.latLngToContainerPoint(ev.latlng)) < 12) { finishPolygon(); return; }
    }
    corners.push(ev.latlng);
    if (!sketch) sketch = L.polyline(corners, { color: "#d95f02", weight: 2, interactive: false }).addTo(map);
    else sketch.setLatLngs(corners);
  });
  document.addEventListener("keydown", function (ev) {
    if (!mode) return;
    if (ev.key === "Escape") stopDrawing("Drawing cancelled.");
    else if (ev.key === "Enter" && mode === "polygon") { ev.preventDefault(); finishPolygon(); }
  });

  /* ---- feedback while a bulk assignment is sent ---- */
  assignForm.addEventListener("submit", function () {
    var n = Object.keys(selection).length;
    var typed = assignForm.elements.parcel_numbers.value.trim();
    var who = assignForm.elements.inspector_id;
    var name = who.selectedIndex > 0 ? who.options[who.selectedIndex].textContent.split(" — ")[0] : "";
    document.getElementById("assign-progress").textContent = "Assigning " + n + (n === 1 ? " parcel" : " parcels") +
      (typed ? " and the numbers typed" : "") + (name ? " to " + name : "") + " …";
    var submit = document.getElementById("assign-submit");
    submit.setAttribute("aria-disabled", "true");
    // Disabled after the browser has read the form, so a second press sends nothing twice.
    setTimeout(function () { submit.disabled = true; }, 0);
  });

  /* ---- start: the city's frame (its service area or dense core), close enough in to draw parcels ---- */
  if (cfg.frame) {
    var e = cfg.frame;
    map.fitBounds([[e[1], e[0]], [e[3], e[2]]]);
    if (map.getZoom() < cfg.min_zoom) map.setZoom(cfg.min_zoom);
  } else {
    map.setView([44.25, -91.5], cfg.min_zoom);
  }
  say();
  reloadSoon();
})();
