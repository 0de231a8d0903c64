// A widget's small state object mirrored in the query string, so any view is a link (history.replaceState).

/**
 * A schema maps each state key to `{ param, fallback, parse, format }`:
 * - `param`: the query-string name (defaults to the key);
 * - `fallback`: the default value; a default is left out of the URL;
 * - `parse(text)`: the value for a query-string text, or undefined when the text is not valid;
 * - `format(value)`: the query-string text for a value (defaults to String).
 */

/** The state described by `schema`, read from the query string `search`; invalid or absent keys get defaults. */
export function readState(schema, search = window.location.search) {
  const params = new URLSearchParams(search);
  const state = {};
  for (const [key, field] of Object.entries(schema)) {
    const text = params.get(field.param ?? key);
    const value = text === null ? undefined : field.parse(text);
    state[key] = value === undefined ? field.fallback : value;
  }
  return state;
}

/** The query string for `state`: only this schema's parameters change, others on the page are kept. */
export function stateToSearch(schema, state, search = window.location.search) {
  const params = new URLSearchParams(search);
  for (const [key, field] of Object.entries(schema)) {
    const name = field.param ?? key;
    const value = state[key];
    if (value === undefined || value === null || value === field.fallback) params.delete(name);
    else params.set(name, (field.format ?? String)(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** Replace the current history entry's query string with `state` (no new entry, no reload). */
export function writeState(schema, state) {
  const search = stateToSearch(schema, state);
  if (search === window.location.search) return;
  const url = `${window.location.pathname}${search}${window.location.hash}`;
  window.history.replaceState(window.history.state, "", url);
}

/** Parsers for the common kinds of value. */
export const parse = {
  /** One of `allowed` (compared as numbers). */
  oneOf: (allowed) => (text) => {
    const n = Number(text);
    return allowed.includes(n) ? n : undefined;
  },
  /** One of the strings `allowed`, exactly as written. */
  choice: (allowed) => (text) => (allowed.includes(text) ? text : undefined),
  /** An integer in [min, max]. */
  integer: (min, max) => (text) => {
    if (!/^\d+$/.test(text.trim())) return undefined;
    const n = Number(text);
    return n >= min && n <= max ? n : undefined;
  },
  /** "1"/"true"/"on" and "0"/"false"/"off". */
  boolean: (text) => {
    const t = text.trim().toLowerCase();
    if (["1", "true", "on", "yes"].includes(t)) return true;
    if (["0", "false", "off", "no"].includes(t)) return false;
    return undefined;
  },
  /** A non-blank string of at most `maxLength` characters. */
  text: (maxLength) => (text) => {
    const t = text.trim();
    return t && t.length <= maxLength ? t : undefined;
  },
};

export const format = {
  boolean: (value) => (value ? "1" : "0"),
};
