// The Lateral API over fetch, with the device token from IndexedDB (never cookies).
import { kv } from "./db.js";

export const API_BASE = "/api/v1";

/** No answer at all: no signal, the server down, the request cut. Retry later. */
export class Offline extends Error {}

/** 401: the token expired or was revoked. The outbox is kept; log in again. */
export class AuthExpired extends Error {}

/** Any other error answer, in the API's one shape. */
export class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `the server answered ${status}`);
    this.status = status;
    this.code = err.code || "error";
    this.details = err.details || {};
  }
}

export async function token() {
  return kv.get("token");
}

/** Call the API; returns the parsed JSON body. */
export async function call(method, path, body, { okStatuses = [] } = {}) {
  const headers = { Accept: "application/json" };
  const tok = await token();
  if (tok) headers.Authorization = `Bearer ${tok}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(API_BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
  } catch (err) {
    throw new Offline(err.message);
  }
  let data = null;
  if (method !== "HEAD" && response.status !== 204) {
    try {
      data = await response.json();
    } catch (err) {
      if (response.ok) throw new Offline("the answer was cut off");
    }
  }
  if (response.ok || okStatuses.includes(response.status)) return { status: response.status, data };
  if (response.status === 401 && tok) throw new AuthExpired((data && data.error && data.error.message) || "log in again");
  if (response.status >= 500) throw new Offline(`the server answered ${response.status}; trying again later`);
  throw new ApiError(response.status, data);
}

export async function login(username, password, deviceName) {
  const { data } = await call("POST", "/auth/token", { username, password, device_name: deviceName });
  return data;
}
