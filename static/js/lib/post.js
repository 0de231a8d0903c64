// POST helpers beside the GET fetcher: JSON or multipart bodies, JSON answers, the server's `detail` as the error.

import { detailText, FetchError } from "./fetcher.js";

async function send(url, init) {
  let response;
  try {
    response = await fetch(url, { method: "POST", ...init, headers: { Accept: "application/json", ...init.headers } });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new FetchError("Could not reach the server. Is it still running?", 0);
  }
  let body = null;
  try {
    body = await response.json();
  } catch (error) {
    if (error?.name === "AbortError") throw error;
  }
  if (!response.ok) throw new FetchError(detailText(body, response.status), response.status);
  if (body === null) throw new FetchError("The server sent an answer that is not JSON.", response.status);
  return body;
}

/** POST `data` as JSON to `url`; the parsed answer, or a FetchError carrying the server's detail. */
export function postJson(url, data, { signal } = {}) {
  return send(url, { body: JSON.stringify(data), headers: { "Content-Type": "application/json" }, signal });
}

/** POST a FormData (multipart, e.g. a file) to `url`; the parsed answer, or a FetchError. */
export function postForm(url, form, { signal } = {}) {
  return send(url, { body: form, headers: {}, signal });
}
