import { S } from "./state.js";

// JSON both ways; an error answer throws, with its message, body and status.
export async function api(path, options = {}) {
  const init = { credentials: "same-origin", ...options };
  if (options.json !== undefined) {
    init.method = options.method || "POST";
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = { error: { code: "bad_json", message: text } }; }
  if (!response.ok) {
    const error = new Error((body && body.error && body.error.message) || response.statusText);
    error.body = body; error.status = response.status;
    throw error;
  }
  return body;
}

// One probe per clip for the page's life: callers at the same time share its promise.
export async function probe(clip) {
  if (!S.probes.has(clip.id)) S.probes.set(clip.id, api("/api/clips/" + clip.id));
  return S.probes.get(clip.id);
}
