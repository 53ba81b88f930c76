// A plumber's CCTV video, sent resumably over tus (server/portal/cctv_pages.py): in chunks,
// each kept by the server before it answers; a dropped connection retries, and choosing the
// same file again resumes it (tus-js-client remembers the upload's URL in localStorage).
(function () {
  "use strict";
  const form = document.getElementById("cctv-upload");
  if (!form || typeof tus === "undefined") return;
  const input = document.getElementById("cctv-file");
  const bar = document.getElementById("cctv-progress");
  const status = document.getElementById("cctv-upload-status");
  const say = (text) => { status.textContent = text; };

  function reason(err) {
    const response = err && err.originalResponse;
    if (response) {
      try {
        const body = JSON.parse(response.getBody());
        if (body && body.error && body.error.message) return body.error.message;
      } catch (e) { /* not our JSON: the generic words below */ }
    }
    return String((err && err.message) || err);
  }

  // The server reads what the file is once it has all of it; these first bytes say it
  // early, before hundreds of MB go over a site's connection for nothing.
  const BOXES = ["ftyp", "moov", "mdat", "free", "skip", "wide", "uuid", "meta", "pdin", "moof", "styp", "pnot"];
  async function looksLikeVideo(file) {
    const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
    if (head.length < 8) return false;
    if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return true;
    return BOXES.includes(String.fromCharCode(head[4], head[5], head[6], head[7]));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = input.files && input.files[0];
    if (!file) { say(form.dataset.choose); return; }
    if (!(await looksLikeVideo(file))) { say(`${form.dataset.failed} ${form.dataset.notVideo}`); return; }
    const upload = new tus.Upload(file, {
      endpoint: form.dataset.endpoint,
      chunkSize: Number(form.dataset.chunk),
      retryDelays: [0, 1000, 3000, 5000, 10000, 20000, 30000],
      removeFingerprintOnSuccess: true,
      metadata: { submittal_id: form.dataset.submittal, filename: file.name },
      headers: { "X-CSRF-Token": form.dataset.csrf },
      onShouldRetry: (err) => {
        const code = err.originalResponse ? err.originalResponse.getStatus() : 0;
        return code === 0 || code === 423 || code >= 500;  // not a refusal (415, 413, 404)
      },
      onProgress: (sent, total) => {
        bar.max = total;
        bar.value = sent;
        say(`${form.dataset.sending} ${Math.floor((100 * sent) / total)} %`);
      },
      onError: (err) => { say(`${form.dataset.failed} ${reason(err)}`); },
      onSuccess: () => { say(form.dataset.done); window.location.reload(); },
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous.length) upload.resumeFromPreviousUpload(previous[0]);
      upload.start();
    });
  });
})();
