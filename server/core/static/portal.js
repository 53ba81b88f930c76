// The owners' portal (server/portal/). A letter's QR code opens /portal/#code=XXXX-...:
// the code rides after "#", which the browser never sends, and is put into the form here.
(function () {
  "use strict";
  function fill() {
    var match = /(?:^#|&)code=([0-9A-Za-z-]{1,64})/.exec(window.location.hash);
    var field = document.getElementById("code");
    if (!match || !field) { return; }
    field.value = match[1];
    var parcel = document.getElementById("parcel_number");
    if (parcel) { parcel.focus(); }
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", window.location.pathname);
    }
  }
  fill();
  window.addEventListener("hashchange", fill);
})();
