// Admin → Audit log: who changed what in the selected org, and every answer
// the policy gave on someone's behalf. Filters (time range, person, server,
// action, reason), "Load more", details as a plain key/value list.

import { api, el } from "../dom.js";
import { banner, busy, field, heading, orgPath, showProblem, time, uid } from "../ui.js";

const PAGE = 50;
const ACTIONS = ["policy.updated", "server.registered", "server.updated", "server.deleted", "server.cut_off", "server.restored",
  "member.role_changed", "member.removed", "invite.created", "invite.revoked", "invite.accepted", "token.created",
  "token.revoked", "mute.added", "mute.removed", "elicitation.auto_answered", "auth.sign_in_throttled"];
const REASONS = ["cut_off", "muted", "credential_ask", "previously_declined", "pestering", "rate_capped", "too_many_pending", "url_refused"];

export default async function render(root, { org, membership }) {
  const [servers, members] = await Promise.all([
    api("GET", orgPath(org, "/servers")).then((r) => r.servers).catch(() => []),
    api("GET", orgPath(org, "/members")).then((r) => r.members).catch(() => []),
  ]);
  const people = new Map(members.map((m) => [m.user.id, m.user]));
  const who = (id) => (id ? (people.get(id) ? `${people.get(id).name} <${people.get(id).email}>` : id) : null);

  const datalist = (values) => { const id = uid("dl"); return [id, el("datalist", { id }, values.map((v) => el("option", { value: v })))]; };
  const [serverList, serverOptions] = datalist(servers.map((s) => s.slug));
  const [reasonList, reasonOptions] = datalist(REASONS);
  const f = {
    since: field("Since", el("input", { type: "datetime-local" }), { help: "Your local time." }),
    until: field("Until", el("input", { type: "datetime-local" })),
    user: field("Person (by or about)", el("select", {}, el("option", { value: "" }, "Anyone"),
      members.map((m) => el("option", { value: m.user.id }, `${m.user.name} (${m.user.email})`)))),
    server: field("Server slug", el("input", { type: "text", list: serverList, autocomplete: "off", spellcheck: "false" })),
    action: field("Action", el("select", {}, el("option", { value: "" }, "Any action"), ACTIONS.map((a) => el("option", { value: a }, a)))),
    reason: field("Reason", el("input", { type: "text", list: reasonList, autocomplete: "off", spellcheck: "false" })),
  };
  const errors = banner();
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const list = el("ol", { class: "records", tabindex: "-1", "aria-label": "Audit entries" });
  const apply = el("button", { type: "submit" }, "Apply filters");
  const clear = el("button", { type: "button", class: "quiet" }, "Clear");
  const more = el("button", { type: "button", class: "quiet" }, "Load more");
  let next = null;
  let shown = 0;
  let filters = new URLSearchParams();

  const load = (fresh) => busy(fresh ? [apply, clear, more] : [more, apply, clear], async () => {
    errors.show("");
    Object.values(f).forEach((x) => x.setError(""));
    const query = new URLSearchParams(filters);
    query.set("limit", String(PAGE));
    if (!fresh && next) query.set("before", next);
    try {
      const page = await api("GET", orgPath(org, `/audit?${query}`));
      if (fresh) { list.replaceChildren(); shown = 0; }
      list.append(...page.entries.map((e) => entry(e, who)));
      shown += page.entries.length;
      next = page.next;
      more.hidden = !next;
      count.textContent = shown ? `${shown} entr${shown === 1 ? "y" : "ies"} shown${next ? "; more are available" : ""}.` : "No entries match.";
    } catch (error) {
      showProblem(error, (name, m) => (f[name] ? (f[name].setError(m), true) : false), errors);
    }
  });

  const form = el("form", { class: "card filters", novalidate: true, role: "search", "aria-label": "Filter the audit log" },
    el("h2", {}, "Filters"), serverOptions, reasonOptions,
    el("div", { class: "filter-grid" }, Object.values(f).map((x) => x.node)), el("div", { class: "actions" }, apply, clear));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    filters = new URLSearchParams();
    for (const key of ["since", "until"]) {
      const v = f[key].control.value;
      if (!v) continue;
      const at = new Date(v); // datetime-local is local time; the API takes RFC 3339
      if (Number.isNaN(at.getTime())) return f[key].setError("Not a valid date and time.");
      filters.set(key, at.toISOString());
    }
    for (const key of ["user", "server", "action", "reason"]) {
      const v = f[key].control.value.trim();
      if (v) filters.set(key, v);
    }
    load(true);
  });
  clear.addEventListener("click", () => { form.reset(); filters = new URLSearchParams(); load(true); });
  more.addEventListener("click", () => load(false));

  root.append(el("section", { class: "card" }, heading("Audit log", `Changes and automatic answers in ${membership.org.name}, newest first.`)),
    form, el("section", { class: "card" }, errors, count, list, el("div", { class: "actions" }, more)));
  await load(true);
}

function entry(e, who) {
  const actor = e.actor === "user" ? who(e.actor_id) ?? "a user" : e.actor === "policy" ? "Policy" : "Herald (system)";
  const rows = [["Actor", actor], ["About", who(e.user_id)], ["Server", e.server], ["Reason", e.reason]]
    .filter(([, v]) => v != null && v !== "");
  const details = e.details && typeof e.details === "object" && Object.keys(e.details).length ? value(e.details) : null;
  return el("li", { class: "record" },
    el("div", { class: "record-head" }, el("strong", { class: "mono" }, e.action), el("span", { class: "muted" }, time(e.at))),
    el("dl", { class: "facts" }, rows.map(([k, v]) => el("div", {}, el("dt", {}, k), el("dd", {}, v)))),
    details ? el("details", {}, el("summary", {}, "Details"), details) : null);
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
