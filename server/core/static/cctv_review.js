// The CCTV review page (server/office/pages/cctv.py): an observation with a time in the
// video seeks the player there.
(function () {
  "use strict";
  const player = document.getElementById("cctv-video");
  if (!player) return;
  document.querySelectorAll("button[data-seconds]").forEach((button) => {
    button.addEventListener("click", () => {
      player.currentTime = Number(button.dataset.seconds);
      player.focus();
    });
  });
})();
