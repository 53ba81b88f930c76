/* The rules pages: the run's progress, and the "tick every parcel" box. A file, not inline
   script: the pages' CSP allows none. Without this script the forms post and the page
   comes back with the outcome. */
(function () {
  "use strict";

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!(box instanceof HTMLInputElement) || !box.dataset.checkAll) return;
    box.form.querySelectorAll('input[name="' + box.dataset.checkAll + '"]:enabled').forEach(function (b) {
      b.checked = box.checked;
    });
  });

  var form = document.getElementById("run-form");
  if (!form) return;
  var button = document.getElementById("run-button");
  var box = document.getElementById("run-progress");
  var bar = document.getElementById("run-bar");
  var status = document.getElementById("run-status");

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var ticked = form.querySelectorAll('input[name="rule"]:checked').length;
    var started = Date.now();
    button.disabled = true;
    box.hidden = false;
    bar.removeAttribute("value"); // indeterminate: the server checks the network in one transaction
    function tell() {
      var s = Math.round((Date.now() - started) / 1000);
      status.textContent = "Checking the network against " + (ticked ? ticked + " rules" : "every rule") +
        "… " + s + " s";
    }
    tell();
    var timer = setInterval(tell, 1000);
    fetch(form.action, {
      method: "POST", body: new FormData(form), credentials: "same-origin",
      headers: { Accept: "application/json" }
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (body) {
        if (!r.ok) throw new Error((body.error && body.error.message) || "the server answered " + r.status);
        return body;
      });
    }).then(function (body) {
      clearInterval(timer);
      bar.max = 1; bar.value = 1;
      status.textContent = body.message + " The list below is refreshed.";
      var link = document.createElement("a");
      link.href = window.location.pathname + window.location.search;
      link.textContent = "Show the violations now";
      status.appendChild(document.createTextNode(" "));
      status.appendChild(link);
      button.disabled = false;
      // Reload the list in place after the outcome has been read out.
      setTimeout(function () { refreshList(); }, 50);
    }).catch(function (err) {
      clearInterval(timer);
      bar.max = 1; bar.value = 0;
      status.textContent = "The run failed: " + err.message + ". Nothing was changed.";
      status.classList.add("error");
      button.disabled = false;
    });
  });

  function refreshList() {
    fetch(window.location.href, { credentials: "same-origin" }).then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        ["list-count"].forEach(function (id) {
          var fresh = doc.getElementById(id), here = document.getElementById(id);
          if (fresh && here) here.replaceWith(fresh);
        });
        var freshTable = doc.querySelector("table[data-section=violations]");
        var table = document.querySelector("table[data-section=violations]");
        var none = document.querySelector(".office > .none");
        if (freshTable && table) table.replaceWith(freshTable);
        else if (freshTable && none) none.replaceWith(freshTable.closest(".scroll") || freshTable);
      });
  }
})();
