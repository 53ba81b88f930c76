// The sync state everyone shows: one object, listeners told on every change.
const listeners = new Set();

export const syncState = {
  online: navigator.onLine,
  phase: "idle", // idle | syncing | error
  waiting: 0, // finished records not yet acknowledged with all their photos
  drafts: 0,
  problems: [], // [{uuid, kind: "conflict" | "rejected" | "photo_rejected", message}]
  progress: null, // {done, total, photo: {index, count, percent}} while syncing
  authExpired: false,
  loginEndsAt: null, // RFC 3339: when the device token stops working, used or not
  lastError: null,
  lastSyncAt: null,
};

export function update(changes) {
  Object.assign(syncState, changes);
  for (const fn of listeners) fn(syncState);
}

export function subscribe(fn) {
  listeners.add(fn);
  fn(syncState);
  return () => listeners.delete(fn);
}

/** The day the login ends, when that is within a week (a warning to log in again), else null. */
export function loginEndsSoon(s, now = new Date()) {
  if (!s.loginEndsAt) return null;
  const ends = new Date(s.loginEndsAt);
  return ends - now < 7 * 24 * 3600 * 1000 ? ends : null;
}

/** One line for the status pill: what a field worker needs to know at a glance. */
export function describe(s) {
  if (s.authExpired) return { tone: "bad", text: "Login expired — log in again to send" };
  if (s.phase === "syncing" && s.progress) {
    const p = s.progress;
    let text = `Syncing ${Math.min(p.done + 1, p.total)} of ${p.total}`;
    if (p.photo) text += ` · photo ${p.photo.index} of ${p.photo.count} (${p.photo.percent}%)`;
    return { tone: "busy", text };
  }
  if (s.phase === "syncing") return { tone: "busy", text: "Syncing…" };
  const conflict = s.problems.find((p) => p.kind === "conflict");
  if (conflict) return { tone: "bad", text: `Conflict: ${conflict.message}` };
  const rejected = s.problems[0];
  if (rejected) return { tone: "bad", text: rejected.kind === "photo_rejected" ? "Photo refused — see the outbox" : "Not accepted — see the outbox" };
  if (!s.online) return { tone: "off", text: s.waiting ? `Offline · ${s.waiting} waiting` : "Offline" };
  if (s.waiting) return { tone: "warn", text: `${s.waiting} waiting` };
  return { tone: "good", text: "All sent" };
}
