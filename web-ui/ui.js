// Shared building blocks for the dashboard's pages: labelled fields with
// their error slots, placing a problem document's field errors, busy buttons,
// inline confirmations, copy buttons and timestamps. Text only, never markup.

import { el } from "./dom.js";

let nextId = 0;
/** A unique id for label/control pairs. */
export const uid = (prefix = "c") => `${prefix}-${++nextId}`;

/** `/orgs/{org}` + rest, with the slug encoded. */
export const orgPath = (org, rest = "") => `/orgs/${encodeURIComponent(org)}${rest}`;

/**
 * A labelled control with a help line and an error slot (aria-live).
 * `control` is an element (its id is set here); returns { node, control, error, setError }.
 */
export function field(label, control, { help, className = "field" } = {}) {
  const id = control.id || uid("f");
  control.id = id;
  const helpNode = help ? el("p", { class: "help", id: `${id}-help` }, help) : null;
  const error = el("p", { class: "error", id: `${id}-error`, "aria-live": "polite" });
  control.setAttribute("aria-describedby", [helpNode ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(" "));
  const labelNode = el("label", { for: id }, label);
  const node = control.type === "checkbox"
    ? el("div", { class: `${className} check` }, control, labelNode, helpNode, error)
    : el("div", { class: className }, labelNode, control, helpNode, error);
  const setError = (message) => {
    error.textContent = message ?? "";
    if (message) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  };
  return { node, control, error, setError };
}

/** A banner for errors that belong to no field (role=alert announces it). */
export function banner() {
  const node = el("div", { class: "banner", role: "alert", hidden: true });
  node.show = (text) => { node.textContent = text; node.hidden = !text; };
  return node;
}

/** A polite live region for "Saved." and similar confirmations. */
export function status() {
  const node = el("p", { class: "status-line", role: "status", "aria-live": "polite" });
  node.say = (text) => { node.textContent = ""; setTimeout(() => (node.textContent = text), 50); };
  return node;
}

/**
 * Puts a failed request's field errors next to their fields. `place(field, message)`
 * returns true when it found a home; the rest (and errors without fields) go to the banner.
 */
export function showProblem(error, place, bannerNode) {
  const leftovers = [];
  for (const { field: name, message } of error.problem?.errors ?? []) {
    if (!place(name, message)) leftovers.push(name ? `${name}: ${message}` : message);
  }
  const placed = (error.problem?.errors?.length ?? 0) > leftovers.length;
  if (leftovers.length || !placed) bannerNode.show([error.message, ...leftovers].join(" — "));
  else bannerNode.show("");
}

/** Runs `work` with `buttons` disabled (and aria-busy on the first); re-enables them after. */
export async function busy(buttons, work) {
  const list = [buttons].flat().filter(Boolean);
  list.forEach((b) => (b.disabled = true));
  list[0]?.setAttribute("aria-busy", "true");
  try {
    return await work();
  } finally {
    list.forEach((b) => { b.disabled = false; b.removeAttribute("aria-busy"); });
  }
}

/**
 * A destructive action that asks first, in the page: the button (styled as dangerous) turns into
 * "question [confirm] [Keep]" where it stood. The question names the thing and what happens to it;
 * focus lands on Keep, the safe choice, and Keep or Escape puts the button back. `onConfirm` runs
 * with both buttons busy; when it returns false (it failed) the button comes back.
 */
export function confirmButton(label, question, confirmLabel, onConfirm, { accessibleName, keepLabel = "Keep" } = {}) {
  const wrap = el("span", { class: "confirm" });
  const start = el("button", { type: "button", class: "quiet danger", "aria-label": accessibleName ?? null }, label);
  const reset = () => { wrap.replaceChildren(start); start.focus(); };
  start.addEventListener("click", () => {
    const qid = uid("confirm");
    const yes = el("button", { type: "button", class: "danger", "aria-describedby": qid }, confirmLabel);
    const no = el("button", { type: "button", class: "quiet", "aria-describedby": qid, onclick: reset }, keepLabel);
    yes.addEventListener("click", () => busy([yes, no], async () => {
      if ((await onConfirm()) === false) reset();
    }));
    const asking = el("span", { class: "confirm-ask", role: "group", "aria-labelledby": qid, onkeydown: (event) => {
      if (event.key !== "Escape" || yes.disabled) return;
      event.stopPropagation();
      reset();
    } }, el("span", { class: "confirm-q", id: qid }, question), " ", yes, " ", no);
    wrap.replaceChildren(asking);
    no.focus();
  });
  wrap.append(start);
  return wrap;
}

/** A Copy button for `text()`; falls back to selecting `target` when the clipboard API is missing. */
export function copyButton(text, { label = "Copy", target, accessibleName } = {}) {
  const said = el("span", { class: "sr-only", "aria-live": "polite" });
  const button = el("button", { type: "button", class: "quiet copy", "aria-label": accessibleName ?? null }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = "Copied";
      said.textContent = "Copied to the clipboard.";
    } catch {
      if (target) getSelection()?.selectAllChildren(target);
      said.textContent = "Could not copy automatically; the text is selected, press Ctrl+C.";
    }
    setTimeout(() => { button.textContent = label; said.textContent = ""; }, 2500);
  });
  return el("span", { class: "copy-wrap" }, button, said);
}

/** A timestamp as text in the reader's locale: the dashboard's one date format. */
export function timeText(ts) {
  return new Date(ts).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** A timestamp as a <time> element in the reader's locale; `empty` when unset. */
export function time(ts, empty = "—") {
  if (!ts) return el("span", { class: "muted" }, empty);
  return el("time", { datetime: ts, title: ts }, timeText(ts));
}

/** A <dl> of label/value pairs; values are text or nodes. Null values are left out. */
export function facts(pairs, className = "facts") {
  return el("dl", { class: className }, pairs.filter(([, v]) => v != null && v !== "")
    .map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, v))));
}

/** A page heading with an optional intro line. */
export function heading(title, intro) {
  return [el("h1", {}, title), intro ? el("p", { class: "muted intro" }, intro) : null];
}

/** The reader's own IANA time zone (the browser's), "UTC" when it names none. */
export function localTimeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/**
 * Every IANA time zone the browser knows (Intl.supportedValuesOf), sorted, with "UTC" and the
 * reader's own zone always among them; `extra` (e.g. a stored zone the browser spells
 * differently) is added when missing.
 */
export function isoTimeZones(...extra) {
  let zones = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    zones = [];
  }
  const all = new Set([...zones, "UTC", localTimeZone(), ...extra.filter(Boolean)]);
  return [...all].sort((a, b) => a.localeCompare(b));
}
