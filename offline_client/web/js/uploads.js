// Photo uploads over tus 1.0 (vendor/tus.min.js, global `tus`). The upload URL is
// kept in IndexedDB as soon as the server gives it, so after the tablet sleeps, loses
// signal or reloads the page the upload resumes from the server's offset (HEAD)
// instead of starting again.
//
// A photo that fits in one chunk goes in one request: the POST that creates the upload
// carries it (tus creation-with-upload). Its URL is then known only when that POST
// answers; if the answer is lost the next sync sends the photo as a new upload, which
// the server (photos stored by SHA-256) accepts without keeping a second copy.
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
  return new Promise((resolve, reject) => {
    const u = new tus.Upload(photo.blob, {
      endpoint: `${location.origin}${API_BASE}/uploads`,
      uploadUrl: photo.upload_url || null,
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
