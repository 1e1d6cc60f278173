// Admin → Audit log: who changed what in the selected org, and every answer
// the policy gave on someone's behalf, each entry titled in words by Herald.
// Filters name things (people, former members included; servers by name,
// deleted ones included, with a slug for any other; actions and rules in
// words), changes show as a diff (old struck through, new beside it), and the
// log exports as JSON lines or CSV with the filters applied. Everything a
// person or a server typed is shown as text.

import { api, el } from "../dom.js";
import { banner, busy, field, heading, orgPath, showProblem, time, uid } from "../ui.js";

const PAGE = 50;
const OTHER_SLUG = "*other*"; // the server select's "another slug" choice; never a slug

export default async function render(root, { org, membership }) {
  const choices = await api("GET", orgPath(org, "/audit/filters"))
    .catch(() => ({ people: [], servers: [], actions: [], reasons: [] }));
  const group = (label, options) => (options.length ? el("optgroup", { label }, options) : null);
  const person = (p) => el("option", { value: p.id }, `${p.name} (${p.email})`);
  const serverOption = (s) => el("option", { value: s.slug },
    s.registered ? s.name : `${s.name ? `${s.name} (${s.slug})` : s.slug}, deleted`);

  const otherSlug = el("input", { type: "text", autocomplete: "off", spellcheck: "false" });
  const f = {
    since: field("Since", el("input", { type: "datetime-local" }), { help: "Your local time." }),
    until: field("Until", el("input", { type: "datetime-local" })),
    user: field("Person", el("select", {}, el("option", { value: "" }, "Anyone"),
      group("Members", choices.people.filter((p) => p.member).map(person)),
      group("Former members", choices.people.filter((p) => !p.member).map(person))),
    { help: "Entries this person made, and entries about them." }),
    server: field("Server", el("select", {}, el("option", { value: "" }, "Any server"),
      group("Registered", choices.servers.filter((s) => s.registered).map(serverOption)),
      group("Deleted", choices.servers.filter((s) => !s.registered).map(serverOption)),
      el("option", { value: OTHER_SLUG }, "Another server, by slug…"))),
    slug: field("Server slug", otherSlug, { help: "For a server deleted long ago: the slug it was registered under." }),
    action: field("What happened", el("select", {}, el("option", { value: "" }, "Anything"),
      choices.actions.map((a) => el("option", { value: a.code }, a.title)))),
    reason: field("Rule", el("select", {}, el("option", { value: "" }, "Any rule or reason"),
      choices.reasons.map((r) => el("option", { value: r.code }, r.title))),
    { help: "Why the policy answered or muted." }),
  };
  const showSlug = () => { f.slug.node.hidden = f.server.control.value !== OTHER_SLUG; };
  f.server.control.addEventListener("change", () => { showSlug(); if (!f.slug.node.hidden) otherSlug.focus(); });
  showSlug();

  const errors = banner();
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const list = el("ol", { class: "records", tabindex: "-1", "aria-label": "Audit entries" });
  const apply = el("button", { type: "submit" }, "Apply filters");
  const clear = el("button", { type: "button", class: "quiet" }, "Clear");
  const more = el("button", { type: "button", class: "quiet" }, "Load more");
  const exportLink = (label) => el("a", { class: "button-link audit-export", download: "" }, label);
  const exports = { jsonl: exportLink("Export JSON lines"), csv: exportLink("Export CSV") };
  let next = null;
  let shown = 0;
  let filters = new URLSearchParams();

  // The export links carry the filters the list shows.
  const aimExports = () => {
    for (const [format, link] of Object.entries(exports)) {
      const query = new URLSearchParams(filters);
      query.set("format", format);
      link.href = `/api/v1${orgPath(org, `/audit/export?${query}`)}`;
    }
  };
  aimExports();

  const load = (fresh) => busy(fresh ? [apply, clear, more] : [more, apply, clear], async () => {
    errors.show("");
    Object.values(f).forEach((x) => x.setError(""));
    const query = new URLSearchParams(filters);
    query.set("limit", String(PAGE));
    if (!fresh && next) query.set("before", next);
    try {
      const page = await api("GET", orgPath(org, `/audit?${query}`));
      if (fresh) { list.replaceChildren(); shown = 0; aimExports(); }
      list.append(...page.entries.map(entry));
      shown += page.entries.length;
      next = page.next;
      more.hidden = !next;
      count.textContent = shown ? `${shown} entr${shown === 1 ? "y" : "ies"} shown${next ? "; more are available" : ""}.` : "No entries match.";
    } catch (error) {
      const place = (name, m) => {
        const target = name === "server" && f.server.control.value === OTHER_SLUG ? f.slug : f[name];
        return target ? (target.setError(m), true) : false;
      };
      showProblem(error, place, errors);
    }
  });

  const form = el("form", { class: "card filters", novalidate: true, role: "search", "aria-label": "Filter the audit log" },
    el("h2", {}, "Filters"),
    el("div", { class: "filter-grid" }, Object.values(f).map((x) => x.node)), el("div", { class: "actions" }, apply, clear));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    Object.values(f).forEach((x) => x.setError(""));
    const chosen = new URLSearchParams();
    for (const key of ["since", "until"]) {
      const v = f[key].control.value;
      if (!v) continue;
      const at = new Date(v); // datetime-local is local time; the API takes RFC 3339
      if (Number.isNaN(at.getTime())) return f[key].setError("Not a valid date and time.");
      chosen.set(key, at.toISOString());
    }
    const server = f.server.control.value === OTHER_SLUG ? otherSlug.value.trim() : f.server.control.value;
    if (f.server.control.value === OTHER_SLUG && !server) return f.slug.setError("Enter the server's slug, or choose a server above.");
    if (server) chosen.set("server", server);
    for (const key of ["user", "action", "reason"]) {
      const v = f[key].control.value;
      if (v) chosen.set(key, v);
    }
    filters = chosen;
    load(true);
  });
  clear.addEventListener("click", () => { form.reset(); showSlug(); filters = new URLSearchParams(); load(true); });
  more.addEventListener("click", () => load(false));

  root.append(el("section", { class: "card" }, heading("Audit log", `Changes and automatic answers in ${membership.org.name}, newest first.`)),
    form,
    el("section", { class: "card", "aria-labelledby": "audit-export-h" },
      el("h2", { id: "audit-export-h" }, "Export"),
      el("p", { class: "muted" }, "Every entry matching the applied filters, not only the ones shown, for your compliance records. The export itself is recorded."),
      el("div", { class: "actions audit-exports" }, exports.jsonl, exports.csv)),
    el("section", { class: "card" }, errors, count, list, el("div", { class: "actions" }, more)));
  await load(true);
}

const someone = (name, email, id) => (name ? `${name} (${email})` : id ? `someone no longer known (${id})` : null);

function entry(e) {
  const actor = e.actor === "user" ? someone(e.actor_name, e.actor_email, e.actor_id) ?? "a person"
    : e.actor === "policy" ? "Herald, applying the policy" : "Herald";
  const about = e.user_id && e.user_id !== e.actor_id ? someone(e.user_name, e.user_email, e.user_id) : null;
  const server = e.server ? (e.server_name ? `${e.server_name} (${e.server})` : `${e.server} (no longer registered)`) : null;
  // The rule in Herald's words; an admin's own words for a cut-off quoted; a mute's "user" says nothing new.
  const reason = e.reason_text ? ["Rule", e.reason_text]
    : e.action === "server.cut_off" && e.reason ? ["Reason given", `“${e.reason}”`]
      : e.reason && e.reason !== "user" ? ["Reason", e.reason] : ["Reason", null];
  const rows = [["By", actor], ["About", about], ["Server", server], reason]
    .filter(([, v]) => v != null && v !== "");
  const titleId = uid("audit");
  const rest = Object.fromEntries(Object.entries(e.details ?? {}).filter(([k]) => k !== "changes"));
  return el("li", { class: "record audit-entry", "aria-labelledby": titleId, "data-action": e.action },
    el("div", { class: "record-head" },
      el("strong", { class: "audit-title", id: titleId }, e.title),
      time(e.at),
      el("span", { class: "mono muted audit-code", title: "The action's code, as the API and exports name it" }, e.action)),
    el("dl", { class: "facts" }, rows.map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, v)))),
    e.changes?.length ? diff(e.changes) : null,
    Object.keys(rest).length ? el("details", {}, el("summary", {}, "Details"), value(rest)) : null);
}

/** Changed settings: the setting in words, the old value struck through, the new one. */
function diff(changes) {
  return el("ul", { class: "audit-diff", "aria-label": "What changed" }, changes.map((c) =>
    el("li", {},
      el("span", { class: "diff-label" }, c.label), " ",
      el("span", { class: "sr-only" }, "from "), el("del", { class: "diff-before" }, shown(c.before)),
      el("span", { "aria-hidden": "true", class: "diff-arrow" }, " → "),
      el("span", { class: "sr-only" }, " to "), el("ins", { class: "diff-after" }, shown(c.after)))));
}

function shown(v) {
  if (v === null || v === undefined) return "none";
  if (Array.isArray(v)) return v.length ? v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ") : "none";
  if (typeof v === "boolean") return v ? "on" : "off";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Any JSON value as nested key/value lists, text only. */
function value(v, depth = 0) {
  if (v === null || v === undefined) return el("span", { class: "muted" }, "none");
  if (typeof v !== "object") return el("span", { class: "mono wrap" }, String(v));
  if (depth > 6) return el("span", { class: "mono wrap" }, JSON.stringify(v));
  if (Array.isArray(v)) {
    if (!v.length) return el("span", { class: "muted" }, "none");
    return el("ol", { class: "kv-list" }, v.map((item) => el("li", {}, value(item, depth + 1))));
  }
  return el("dl", { class: "kv" }, Object.entries(v).map(([k, item]) =>
    el("div", {}, el("dt", {}, k.replaceAll("_", " ")), el("dd", {}, value(item, depth + 1)))));
}
