// The page's one API client. A request is a URL (GET), `{ url, body }` (POST of JSON) or `{ url, form }` (POST
// of a FormData, e.g. an uploaded file). Every answer is JSON, or the packed form of one (lib/packed.js), read
// back into the same object; a refusal carries the server's `detail`, which becomes the error's message. GET
// and JSON answers are remembered by request (least recently used forgotten first), and requests on one
// channel supersede each other: a newer one aborts an older one still in flight.

import { unpack } from "./packed.js";

/** A request the server refused (4xx) or could not answer; `message` is the text to show the reader, `body`
 * the refusal's parsed JSON (null when there was none), for the fields some refusals state beside `detail`. */
export class FetchError extends Error {
  constructor(message, status, body = null) {
    super(message);
    this.name = "FetchError";
    this.status = status;
    this.body = body;
  }
}

/** True for the rejection of a request that was aborted because a newer one superseded it. */
export const isAbort = (error) => error?.name === "AbortError";

/** The reader-facing text of a FastAPI error body: a string `detail`, or the messages of a validation list. */
export function detailText(body, status) {
  const detail = body?.detail;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d) => [d?.loc?.slice(1).join("."), d?.msg].filter(Boolean).join(": "));
    if (parts.length) return parts.join("; ");
  }
  return `The server answered ${status}.`;
}

/** The memory key of `request`, or null for one that is never remembered (a file upload). */
export function requestKey(request) {
  if (typeof request === "string") return request;
  if (request.form) return null;
  return `POST ${request.url} ${JSON.stringify(request.body)}`;
}

// The version of the server's answers (templates/base.html): sent with every GET of the API as `v`, so that an
// answer the browser keeps for a day (app/web/stored_answers.py) is never one from before the server changed.
const ANSWERS_VERSION = globalThis.document?.querySelector('meta[name="answers-version"]')?.content ?? "";

/** `url` as sent: a GET of the API carries the answers' version. */
export function versioned(url) {
  if (!ANSWERS_VERSION || !url.startsWith("/api/")) return url;
  return `${url}${url.includes("?") ? "&" : "?"}v=${encodeURIComponent(ANSWERS_VERSION)}`;
}

/** The `fetch` init for `request`. */
function fetchInit(request, signal) {
  const headers = { Accept: "application/json" };
  if (typeof request === "string") return { signal, headers };
  if (request.form) return { method: "POST", body: request.form, signal, headers };
  headers["Content-Type"] = "application/json";
  return { method: "POST", body: JSON.stringify(request.body), signal, headers };
}

/** Send `request` once: its parsed JSON answer, or a FetchError with the reader-facing text. */
export async function send(request, { signal } = {}) {
  const url = typeof request === "string" ? versioned(request) : request.url;
  let response;
  try {
    response = await fetch(url, fetchInit(request, signal));
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new FetchError("Could not reach the server. Is it still running?", 0);
  }
  let body = null;
  try {
    const packed = response.ok && response.headers.get("Content-Type") === "application/octet-stream";
    body = packed ? unpack(await response.arrayBuffer()) : await response.json();
  } catch (error) {
    if (isAbort(error)) throw error;
  }
  if (!response.ok) throw new FetchError(detailText(body, response.status), response.status, body);
  if (body === null) throw new FetchError("The server sent an answer that is not JSON.", response.status);
  return body;
}

export class Api {
  /** `limit` bounds how many answers are remembered. */
  constructor({ limit = 120 } = {}) {
    this.limit = limit;
    this.answers = new Map(); // key -> parsed answer, in insertion (= recency) order
    this.pending = new Map(); // key -> promise of the answer, while in flight
    this.latest = new Map(); // channel -> { key, controller, promise } of the newest request on that channel
    this.loads = new Map(); // channel -> token of the newest `load` on it
    this.gate = null; // while set, a promise that requests wait for before they are sent (see holdUntil)
  }

  /** Send no request before `promise` resolves (main.js: a lazy figure's requests wait until it is near). */
  holdUntil(promise) {
    this.gate = promise;
    promise.then(() => {
      if (this.gate === promise) this.gate = null;
    });
  }

  /** The remembered answer to `request`, or undefined: lets a widget redraw without waiting a tick. */
  cached(request) {
    const key = requestKey(request);
    if (key === null || !this.answers.has(key)) return undefined;
    const answer = this.answers.get(key);
    this.answers.delete(key); // refresh recency
    this.answers.set(key, answer);
    return answer;
  }

  remember(key, answer) {
    if (key === null) return;
    this.answers.set(key, answer);
    while (this.answers.size > this.limit) this.answers.delete(this.answers.keys().next().value);
  }

  /**
   * The answer to `request`. A request on a `channel` aborts the previous one on that channel if it is still
   * in flight for a different request (whose promise then rejects with an AbortError). Without a channel
   * (prefetching), a request is never aborted by another.
   */
  get(request, { channel = null } = {}) {
    const key = requestKey(request);
    const previous = channel ? this.latest.get(channel) : null;
    if (previous && (previous.key !== key || key === null)) {
      previous.controller.abort();
      // Forget the aborted request at once, so asking for it again starts a new one.
      if (this.pending.get(previous.key) === previous.promise) this.pending.delete(previous.key);
      this.latest.delete(channel);
    }
    const answer = this.cached(request);
    if (answer !== undefined) return Promise.resolve(answer);
    if (key !== null && this.pending.has(key)) return this.pending.get(key);

    const controller = new AbortController();
    const sent = this.gate
      ? this.gate.then(() => send(request, { signal: controller.signal }))
      : send(request, { signal: controller.signal });
    const promise = sent
      .then((body) => {
        this.remember(key, body);
        return body;
      })
      .finally(() => {
        if (this.pending.get(key) === promise) this.pending.delete(key);
        if (channel && this.latest.get(channel)?.promise === promise) this.latest.delete(channel);
      });
    if (key !== null) this.pending.set(key, promise);
    if (channel) this.latest.set(channel, { key, controller, promise });
    return promise;
  }

  /**
   * Load `request` for a view that may move on while it waits: a remembered answer is shown at once;
   * otherwise `busy(true)` until the answer or error arrives. The answer or error is dropped when the view
   * has moved on meanwhile: when `current()` (if given) names another request, or a newer `load` was made on
   * the same channel. Aborted requests stay silent.
   */
  load(request, { channel, current, busy = () => {}, show, fail }) {
    const key = requestKey(request);
    const token = {};
    this.loads.set(channel, token);
    const stillWanted = () =>
      this.loads.get(channel) === token && (current === undefined || requestKey(current()) === key);
    const cached = this.cached(request);
    if (cached !== undefined) {
      this.get(request, { channel }); // supersede anything still in flight on the channel
      busy(false);
      show(cached);
      return;
    }
    busy(true);
    this.get(request, { channel }).then(
      (data) => {
        if (!stillWanted()) return;
        busy(false);
        show(data);
      },
      (error) => {
        if (isAbort(error) || !stillWanted()) return;
        busy(false);
        fail(error.message, error);
      },
    );
  }
}
