// Photo uploads over tus 1.0 (vendor/tus.min.js, global `tus`). The upload URL is
// kept in IndexedDB as soon as the server gives it, so after the tablet sleeps, loses
// signal or reloads the page the upload resumes from the server's offset (HEAD)
// instead of starting again.
//
// A photo that fits in one chunk goes in one request: the POST that creates the upload
// carries it (tus creation-with-upload). The app names the upload itself (`upload_id`,
// stored before that POST), so if the POST's answer is lost, the next try asks the
// server about the named URL (HEAD) and resumes, or finds the photo complete, instead
// of sending it all again; if the POST never arrived, the HEAD's 404 creates it anew.
import * as db from "./db.js";
import { API_BASE, AuthExpired, Offline, token } from "./api.js";

/** The server refused the photo itself (not an image, too large, …): don't retry. */
export class PhotoRejected extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function serverError(err) {
  const response = err.originalResponse;
  if (!response) return new Offline(err.message);
  const status = response.getStatus();
  let code = "error";
  let message = `the server answered ${status}`;
  try {
    const body = JSON.parse(response.getBody() || "{}");
    if (body.error) ({ code, message } = body.error);
  } catch (_) {
    /* not JSON: keep the status line */
  }
  if (status === 401) return new AuthExpired(message);
  if (status >= 400 && status < 500 && status !== 409 && status !== 423) return new PhotoRejected(code, message);
  return new Offline(message);
}

let current = null;

/** A new upload id: 32 lower-case hex digits, the server's `upload_id`. */
function newUploadId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Stop the upload in flight (the tablet went offline); it resumes on the next sync. */
export function abortCurrent() {
  if (!current) return;
  const { upload, reject } = current;
  current = null;
  upload.abort(); // tus-js-client calls back nothing after an abort: settle the promise here
  reject(new Offline("the tablet went offline during the upload"));
}

/**
 * Upload one photo row; resolves when the server has all its bytes.
 * @param {object} photo a row of the photos store
 * @param {{chunkSize: number, onProgress: (sent: number, total: number) => void}} options
 */
export async function upload(photo, { chunkSize, onProgress }) {
  const auth = await token();
  const endpoint = `${location.origin}${API_BASE}/uploads`;
  // An id already stored means an earlier try may have created the upload: ask first.
  const triedBefore = Boolean(photo.upload_id);
  if (!triedBefore) {
    photo.upload_id = newUploadId();
    await db.put("photos", photo);
  }
  const named = `${endpoint}/${photo.upload_id}`;
  return new Promise((resolve, reject) => {
    const u = new tus.Upload(photo.blob, {
      endpoint,
      uploadUrl: photo.upload_url || (triedBefore ? named : null),
      chunkSize,
      // Larger photos keep a bodiless POST: their URL is stored before the first byte.
      uploadDataDuringCreation: photo.blob.size <= chunkSize,
      retryDelays: [0, 1000, 3000],
      storeFingerprintForResuming: false,
      headers: { Authorization: `Bearer ${auth}` },
      metadata: {
        sha256: photo.sha256,
        inspection_uuid: photo.inspection_uuid,
        item_id: photo.item_id,
        filename: photo.filename,
        upload_id: photo.upload_id,
      },
      onBeforeRequest(req) {
        // tus-js-client retries a failed POST by creating again; from now on it
        // resumes the named upload instead (a HEAD, then a POST only on 404).
        if (req.getMethod() === "POST") u.options.uploadUrl = named;
      },
      onShouldRetry(err) {
        const status = err.originalResponse ? err.originalResponse.getStatus() : 0;
        if (status >= 400 && status < 500 && status !== 409 && status !== 423) return false;
        return navigator.onLine;
      },
      onUploadUrlAvailable() {
        photo.upload_url = u.url;
        db.put("photos", photo);
      },
      onProgress(sent, total) {
        onProgress && onProgress(sent, total);
      },
      onChunkComplete(_size, accepted) {
        photo.sent_bytes = accepted;
        db.put("photos", photo);
      },
      onSuccess() {
        current = null;
        resolve();
      },
      onError(err) {
        current = null;
        reject(serverError(err));
      },
    });
    current = { upload: u, reject };
    u.start();
  });
}
