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
    var started = Date.now(), stage = "Starting the run", outcome = null;
    button.disabled = true;
    box.hidden = false;
    status.classList.remove("error");
    bar.removeAttribute("value"); // indeterminate until the first rule is reported
    function seconds() { return Math.round((Date.now() - started) / 1000) + " s"; }
    function tell() { status.textContent = stage + "… " + seconds(); }
    tell();
    var timer = setInterval(tell, 1000);

    /* One JSON object a line, as the server checks: load, each rule, reconcile, done. */
    function take(line) {
      if (!line.trim()) return;
      var msg = JSON.parse(line);
      if (msg.stage === "load") {
        stage = "Reading the network from the database";
      } else if (msg.stage === "check") {
        bar.max = msg.total; bar.value = msg.done;
        stage = "Checking rule " + (msg.done + 1) + " of " + msg.total + ": " + msg.rule;
      } else if (msg.stage === "reconcile") {
        bar.value = bar.max;
        stage = "Recording the violations opened, kept and resolved";
      } else if (msg.stage === "done" || msg.stage === "error") {
        outcome = msg;
      }
      tell();
    }

    fetch(form.action, {
      method: "POST", body: new FormData(form), credentials: "same-origin",
      headers: { Accept: "application/x-ndjson" }
    }).then(function (r) {
      if (!r.ok) {
        return r.json().catch(function () { return {}; }).then(function (body) {
          throw new Error((body.error && body.error.message) || "the server answered " + r.status);
        });
      }
      var reader = r.body.getReader(), decoder = new TextDecoder(), rest = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) { take(rest); return; }
          var parts = (rest + decoder.decode(chunk.value, { stream: true })).split("\n");
          rest = parts.pop();
          parts.forEach(take);
          return pump();
        });
      }
      return pump();
    }).then(function () {
      clearInterval(timer);
      button.disabled = false;
      if (!outcome) throw new Error("the run stopped without an answer");
      if (outcome.stage === "error") throw new Error(outcome.message);
      if (!bar.hasAttribute("value")) { bar.max = 1; }
      bar.value = bar.max;
      status.textContent = outcome.message + " ";
      var link = document.createElement("a");
      link.href = window.location.pathname + window.location.search;
      link.textContent = "Show the violations now";
      status.appendChild(link);
      refreshList();
    }).catch(function (err) {
      clearInterval(timer);
      button.disabled = false;
      if (!bar.hasAttribute("value")) { bar.max = 1; bar.value = 0; }
      status.textContent = "The run failed: " + err.message + ".";
      status.classList.add("error");
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
