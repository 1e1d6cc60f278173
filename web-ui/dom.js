// Small DOM and API helpers shared by the dashboard's pages. `el` builds
// elements from text nodes only: nothing is ever parsed as HTML.

/** el("p", {class: "x"}, "text", child, …) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value == null) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child == null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Calls Herald's REST API; throws an Error carrying the problem document.
 * `signal` (an AbortSignal) ends the request early.
 */
export async function api(method, path, body, { signal } = {}) {
  const response = await fetch(`/api/v1${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw Object.assign(new Error(data?.detail ?? response.statusText), { problem: data });
  return data;
}
