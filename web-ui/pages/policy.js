// Admin → Policy: an editor for the selected org's whole elicitation policy
// document, each field with its default beside it, inline range checks, lists
// as one entry per line, Save (PUT) with the server's field errors placed on
// the right fields, and "Reset to defaults" (fills the form; Save applies it).

import { api, el } from "../dom.js";
import { banner, busy, field, heading, orgPath, showProblem, status } from "../ui.js";

const DURATION = (s) => (s % 86400 === 0 ? `${s / 86400} d` : s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);

// [group legend, [[path, label, kind, rule, help]]]; kind: int | enum | bool | terms | domains.
const SPEC = [
  ["Questions", [
    ["elicitation.timeout_secs", "Deadline for an answer (seconds)", "int", [10, 86400], "How long a shown question waits before it is cancelled. 10 to 86400."],
  ]],
  ["Credential asks", [
    ["credential_ask.mode", "When a server asks for a credential", "enum", [["block", "Block: decline, tell the person, flag to admins"], ["warn", "Warn: show it behind a loud warning"], ["off", "Off: do not check"]]],
    ["credential_ask.extra_terms", "Extra terms that count as credentials", "terms", 200, "One term per line; at most 200, each up to 64 characters."],
    ["credential_ask.allow_terms", "Terms that never count", "terms", 200, "One term per line, for false positives such as a product name. Not also an extra term."],
  ]],
  ["Decline memory", [
    ["decline_memory.window_secs", "Remember declines for (seconds)", "int", [60, 7776000], "The same question asked again within this window is declined for the person. 60 to 7776000 (90 days)."],
    ["decline_memory.pestering_threshold", "Re-asks before auto-mute", "int", [1, 100], "Re-asks of a declined question, within the window, after which the server is muted for that person. 1 to 100."],
  ]],
  ["Rate caps", [
    ["rate_caps.per_user_server_per_minute", "Per person and server, per minute", "int", [1, 1000000], "1 to 1000000."],
    ["rate_caps.per_server_per_hour", "Per server across the organisation, per hour", "int", [1, 1000000], "1 to 1000000."],
    ["rate_caps.per_org_per_hour", "Whole organisation, per hour", "int", [1, 1000000], "1 to 1000000."],
    ["rate_caps.max_pending_per_user", "Questions waiting for one person at once", "int", [1, 10000], "1 to 10000."],
  ]],
  ["URL mode", [
    ["url_mode.enabled", "Allow servers to ask people to open links", "bool"],
    ["url_mode.allow_domains", "Allowed domains", "domains", 500, "One domain per line (covers its subdomains). Empty: any domain not denied. No “*.”, no IP addresses; punycode for international names."],
    ["url_mode.deny_domains", "Denied domains", "domains", 500, "One domain per line; deny wins over allow."],
  ]],
  ["Retention", [
    ["retention.accepted_content_days", "Keep accepted answers' content (days)", "int", [1, 3650], "1 to 3650. The record of who answered stays."],
  ]],
];

const get = (doc, path) => path.split(".").reduce((v, k) => v?.[k], doc);
const put = (doc, path, value) => {
  const keys = path.split(".");
  const last = keys.pop();
  keys.reduce((v, k) => (v[k] ??= {}), doc)[last] = value;
};
const lines = (text) => text.split("\n").map((l, i) => [l.trim(), i + 1]).filter(([l]) => l);

function describeDefault(path, kind, value) {
  if (kind === "bool") return value ? "on" : "off";
  if (kind === "terms" || kind === "domains") return value?.length ? value.join(", ") : "none";
  if (path.endsWith("_secs") && value >= 60) return `${value} (${DURATION(value)})`;
  return String(value);
}

export default async function render(root, { org, membership }) {
  const [defaults, policy] = await Promise.all([api("GET", "/policy/defaults"), api("GET", orgPath(org, "/policy"))]);
  const said = status();
  const errors = banner();
  const controls = {}; // path -> { kind, rule, f: field(), lineOf: [] }

  const check = (path) => {
    const c = controls[path];
    const value = c.f.control.value;
    let problem = "";
    if (c.kind === "int") {
      const n = Number(value);
      const [min, max] = c.rule;
      if (value.trim() === "") problem = "Enter a number (the default is beside the field).";
      else if (!Number.isInteger(n)) problem = "Must be a whole number.";
      else if (n < min || n > max) problem = `Must be between ${min} and ${max}.`;
    } else if (c.kind === "terms" || c.kind === "domains") {
      const entries = lines(value);
      const seen = new Map();
      const notes = [];
      if (entries.length > c.rule) notes.push(`At most ${c.rule} entries (now ${entries.length}).`);
      for (const [entry, line] of entries) {
        const key = entry.toLowerCase();
        if (c.kind === "terms" && entry.length > 64) notes.push(`Line ${line}: at most 64 characters.`);
        if (seen.has(key)) notes.push(`Line ${line}: repeats line ${seen.get(key)}.`);
        else seen.set(key, line);
      }
      problem = notes.join("\n");
    }
    c.f.setError(problem);
    return !problem;
  };

  const groups = SPEC.map(([legend, items]) => el("fieldset", { class: "policy-group" }, el("legend", {}, legend), items.map(([path, label, kind, rule, help]) => {
    const id = `p-${path.replace(/\W/g, "-")}`;
    const control = kind === "int" ? el("input", { id, type: "number", inputmode: "numeric", step: 1, min: rule[0], max: rule[1], required: true })
      : kind === "enum" ? el("select", { id }, rule.map(([value, text]) => el("option", { value }, text)))
        : kind === "bool" ? el("input", { id, type: "checkbox" })
          : el("textarea", { id, rows: 3, spellcheck: "false", autocomplete: "off" });
    const f = field(label, control, { help });
    const defaultText = describeDefault(path, kind, get(defaults, path));
    const defaultNode = el("p", { class: "default", id: `${id}-default` }, "Default: ", el("span", { class: "mono" }, defaultText));
    control.setAttribute("aria-describedby", `${control.getAttribute("aria-describedby")} ${id}-default`);
    if (kind === "int" || kind === "enum") {
      // Beside the control: [ 600 ] Default: 600 (10 min)
      const row = el("div", { class: "control-row" });
      control.replaceWith(row);
      row.append(control, defaultNode);
    } else {
      f.error.before(defaultNode);
    }
    controls[path] = { kind, rule, f };
    if (kind !== "enum" && kind !== "bool") control.addEventListener("input", () => check(path));
    return f.node;
  })));

  const fill = (doc) => {
    for (const [path, c] of Object.entries(controls)) {
      const value = get(doc, path);
      if (c.kind === "bool") c.f.control.checked = Boolean(value);
      else if (c.kind === "terms" || c.kind === "domains") c.f.control.value = (value ?? []).join("\n");
      else c.f.control.value = String(value ?? "");
      c.f.setError("");
    }
  };
  const read = () => {
    const doc = {};
    for (const [path, c] of Object.entries(controls)) {
      const v = c.f.control;
      put(doc, path, c.kind === "int" ? Number(v.value) : c.kind === "bool" ? v.checked
        : c.kind === "enum" ? v.value : lines(v.value).map(([entry]) => entry));
    }
    return doc;
  };
  // Server errors: "url_mode.allow_domains[2]" lands on that textarea, as its line number.
  const place = (name, message) => {
    const match = /^(.*?)(?:\[(\d+)\])?$/.exec(name);
    const c = controls[match[1]];
    if (!c) return false;
    let text = message;
    if (match[2] !== undefined) {
      const entry = lines(c.f.control.value)[Number(match[2])];
      text = entry ? `Line ${entry[1]} (“${entry[0]}”): ${message}` : `Entry ${Number(match[2]) + 1}: ${message}`;
    }
    c.f.setError([c.f.error.textContent, text].filter(Boolean).join("\n"));
    return true;
  };

  const save = el("button", { type: "submit" }, "Save policy");
  const reset = el("button", { type: "button", class: "quiet" }, "Reset to defaults");
  reset.addEventListener("click", () => {
    fill(defaults);
    errors.show("");
    said.say("The form now holds the defaults. Save to apply them.");
  });
  const form = el("form", { class: "card policy", novalidate: true },
    heading("Policy", `What ${membership.org.name}'s people are shown. Changes apply to new questions and are recorded in the audit log.`),
    errors, groups, el("div", { class: "actions sticky-actions" }, save, reset), said);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    errors.show("");
    const valid = Object.keys(controls).map(check).every(Boolean);
    if (!valid) {
      errors.show("Some fields need fixing; see the messages next to them.");
      form.querySelector("[aria-invalid=true]")?.focus();
      return;
    }
    busy([save, reset], async () => {
      try {
        const stored = await api("PUT", orgPath(org, "/policy"), read());
        fill(stored);
        said.say("Policy saved.");
      } catch (error) {
        Object.values(controls).forEach((c) => c.f.setError(""));
        showProblem(error, place, errors);
        const first = form.querySelector("[aria-invalid=true]");
        if (first && errors.hidden) errors.show(`${error.message}: see the messages next to the fields.`);
        first?.focus();
      }
    });
  });
  fill(policy);
  root.append(form);
}
