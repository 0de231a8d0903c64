// A memoising JSON POST for a widget that recomputes as the reader types: answers are remembered by body (so
// toggling back and forth never waits) and a newer request aborts an older one still in flight.

import { postJson } from "./post.js";

export class MemoPoster {
  /** Posts to `url`; `limit` bounds how many answers are remembered (oldest forgotten first). */
  constructor(url, { limit = 40 } = {}) {
    this.url = url;
    this.limit = limit;
    this.answers = new Map(); // body text -> parsed answer, in insertion (= recency) order
    this.controller = null;
  }

  /** The remembered answer for `body`, or undefined. */
  cached(body) {
    const key = JSON.stringify(body);
    if (!this.answers.has(key)) return undefined;
    const answer = this.answers.get(key);
    this.answers.delete(key); // refresh recency
    this.answers.set(key, answer);
    return answer;
  }

  /** The answer for `body`. Aborts the previous request if still in flight (its promise rejects, AbortError). */
  async post(body) {
    this.controller?.abort();
    this.controller = null;
    const answer = this.cached(body);
    if (answer !== undefined) return answer;
    const controller = new AbortController();
    this.controller = controller;
    try {
      const parsed = await postJson(this.url, body, { signal: controller.signal });
      this.answers.set(JSON.stringify(body), parsed);
      while (this.answers.size > this.limit) this.answers.delete(this.answers.keys().next().value);
      return parsed;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }
}
