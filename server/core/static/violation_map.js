/* A violation's small map: the feature in breach (the evidence) in red over its parcel,
   drawn from the page's JSON block. No basemap: the shapes are enough to place it. */
(function () {
  "use strict";
  var data = document.getElementById("violation-shapes");
  var node = document.getElementById("violation-map");
  if (!data || !node || typeof L === "undefined") return;
  var shapes = JSON.parse(data.textContent);
  var map = L.map(node, { zoomSnap: 0.5, keyboard: true });
  var group = L.featureGroup().addTo(map);
  if (shapes.parcel) {
    L.geoJSON(shapes.parcel, { style: { color: "#1a5fb4", weight: 2, fillOpacity: 0.08 } }).addTo(group);
  }
  if (shapes.evidence) {
    L.geoJSON(shapes.evidence, {
      style: { color: "#b3261e", weight: 5 },
      pointToLayer: function (f, latlng) {
        return L.circleMarker(latlng, { radius: 8, color: "#b3261e", weight: 3, fillOpacity: 0.5 });
      }
    }).addTo(group);
  }
  var bounds = group.getBounds();
  if (bounds.isValid()) map.fitBounds(bounds.pad(0.6), { maxZoom: 20 });
  else map.setView([0, 0], 2);
})();
