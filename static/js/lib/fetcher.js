// A memoising JSON fetcher: one request per URL, the server's `detail` as the error, superseded ones aborted.

/** A request the server refused (4xx) or could not answer; `message` is the text to show the reader. */
export class FetchError extends Error {
  constructor(message, status) {
    super(message);
    this.name = "FetchError";
    this.status = status;
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

export class JsonFetcher {
  /** `limit` bounds how many answers are remembered (oldest forgotten first). */
  constructor({ limit = 120 } = {}) {
    this.limit = limit;
    this.pending = new Map(); // url -> Promise of the parsed answer, while in flight
    this.answers = new Map(); // url -> parsed answer, in insertion (= recency) order
    this.latest = new Map(); // channel -> { url, controller } of the newest request on that channel
  }

  /** The remembered answer for `url`, or undefined: lets a widget redraw without waiting a tick. */
  cached(url) {
    if (!this.answers.has(url)) return undefined;
    const answer = this.answers.get(url);
    this.answers.delete(url); // refresh recency
    this.answers.set(url, answer);
    return answer;
  }

  /**
   * The JSON answer for `url`. Requests made on the same `channel` supersede each other: starting one aborts
   * the previous one if it is still in flight for a different URL (its promise rejects with an AbortError).
   * Without a channel (prefetching), a request is never aborted by another.
   */
  get(url, { channel = null } = {}) {
    const previous = channel ? this.latest.get(channel) : null;
    if (previous && previous.url !== url) {
      previous.controller.abort();
      // Forget the aborted request at once, so asking for its URL again starts a new one.
      if (this.pending.get(previous.url) === previous.promise) this.pending.delete(previous.url);
      this.latest.delete(channel);
    }
    const answer = this.cached(url);
    if (answer !== undefined) return Promise.resolve(answer);
    if (this.pending.has(url)) return this.pending.get(url);

    const controller = new AbortController();
    const promise = this.#load(url, controller.signal).finally(() => {
      if (this.pending.get(url) === promise) this.pending.delete(url);
      if (channel && this.latest.get(channel)?.promise === promise) this.latest.delete(channel);
    });
    this.pending.set(url, promise);
    if (channel) this.latest.set(channel, { url, controller, promise });
    return promise;
  }

  /**
   * Load `url` for a view that may move on while it waits: a remembered answer is shown at once; otherwise
   * `busy(true)` until the answer or error arrives. Either is dropped if `current()` no longer returns `url`
   * (the reader changed the view meanwhile), and aborted requests stay silent.
   */
  load(url, { channel, current, busy, show, fail }) {
    const cached = this.cached(url);
    if (cached) {
      this.get(url, { channel }); // supersede anything still in flight on the channel
      busy(false);
      show(cached);
      return;
    }
    busy(true);
    this.get(url, { channel }).then(
      (data) => {
        if (url !== current()) return;
        busy(false);
        show(data);
      },
      (error) => {
        if (isAbort(error) || url !== current()) return;
        busy(false);
        fail(error.message);
      },
    );
  }

  async #load(url, signal) {
    let response;
    try {
      response = await fetch(url, { signal, headers: { Accept: "application/json" } });
    } catch (error) {
      if (isAbort(error)) throw error;
      throw new FetchError("Could not reach the server. Is it still running?", 0);
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      if (isAbort(error)) throw error;
    }
    if (!response.ok) throw new FetchError(detailText(body, response.status), response.status);
    if (body === null) throw new FetchError("The server sent an answer that is not JSON.", response.status);
    this.answers.set(url, body);
    while (this.answers.size > this.limit) this.answers.delete(this.answers.keys().next().value);
    return body;
  }
}
