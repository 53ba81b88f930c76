/* What the office maps share about their base: a configured basemap (below), and the registry's labelled layers
   (a layer whose map style names a `label_field`, the streets) drawn lightly under the
   parcels with their names written along them, from the zoom where the names fit between
   the lots (`label_zoom`). This is the default basemap: it needs no internet, only the
   city's own data. Names are text nodes, never markup. */
(function () {
  "use strict";

  function tooltipFor(spec) {
    return function (f, layer) {
      var text = f.properties[spec.label_field];
      if (!text) return;
      var span = document.createElement("span");
      span.textContent = text;
      layer.bindTooltip(span, { permanent: true, direction: "center", className: "map-label", interactive: false });
    };
  }

  /* Hide the labels while the map is zoomed out past where they fit. */
  function follow(map, spec) {
    function show() {
      map.getContainer().classList.toggle("map-labels-hidden", map.getZoom() < spec.label_zoom);
    }
    map.on("zoomend", show);
    show();
  }

  /* A Leaflet GeoJSON layer for one labelled registry layer, fetched by bbox. */
  function baseLayer(map, spec) {
    if (!map.getPane("citybase")) {
      map.createPane("citybase");
      map.getPane("citybase").style.zIndex = 350; // under the overlay pane's parcels
    }
    var layer = L.geoJSON(null, {
      pane: "citybase",
      style: { color: spec.style.colour, weight: 5, opacity: 0.55 },
      interactive: false,
      onEachFeature: tooltipFor(spec.style)
    });
    layer.dataUrl = function (bbox) { return "/api/v1/" + spec.name + "?limit=5000&bbox=" + bbox; };
    follow(map, spec.style);
    return layer;
  }

  /* A basemap the city configured, under everything: its PMTiles file served by Lateral
     (read with HTTP range requests by vendor/pmtiles), else a tile URL template. Without
     either, the streets above are the basemap. */
  function basemap(map, cfg) {
    var options = { maxZoom: 20, attribution: cfg.basemap_attribution || "" };
    if (cfg.basemap_pmtiles && window.pmtiles) {
      return window.pmtiles.leafletRasterLayer(new window.pmtiles.PMTiles(cfg.basemap_pmtiles), options).addTo(map);
    }
    if (cfg.basemap_url) return L.tileLayer(cfg.basemap_url, options).addTo(map);
    return null;
  }

  window.lateralMapLabels = { tooltipFor: tooltipFor, follow: follow, baseLayer: baseLayer, basemap: basemap };
})();
