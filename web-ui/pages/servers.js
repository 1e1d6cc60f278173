// Admin → Servers: the selected org's remote MCP servers. Register, edit
// (name, URL, and the header set, whose values are write-only), cut off for
// everyone with a reason, restore, and delete.

import { api, el } from "../dom.js";
import { banner, busy, confirmButton, facts, field, heading, orgPath, showProblem, status, time, uid } from "../ui.js";

export default async function render(root, { org, membership }) {
  const said = status();
  const listErrors = banner();
  const list = el("div", { class: "stack", tabindex: "-1", "aria-label": "Registered servers" });

  // Redraws the list; `focus` (a slug and a button label) puts keyboard focus back where it was.
  const refresh = async (focus) => {
    try {
      const { servers } = await api("GET", orgPath(org, "/servers"));
      list.replaceChildren(...(servers.length ? servers.map((s) => serverCard(s)) : [el("p", { class: "muted" }, "No servers registered yet.")]));
      listErrors.show("");
      if (focus) {
        const card = [...list.children].find((c) => c.dataset.slug === focus[0]);
        const button = card && [...card.querySelectorAll(".actions button")].find((b) => b.textContent === focus[1]);
        (button ?? list).focus();
      }
    } catch (error) {
      listErrors.show(error.message);
    }
  };
  const path = (s, rest = "") => orgPath(org, `/servers/${encodeURIComponent(s.slug)}${rest}`);

  const serverCard = (s) => {
    const card = el("article", { class: "card server", "aria-labelledby": `srv-${s.slug}`, "data-slug": s.slug });
    const panel = el("div", { id: `srv-${s.slug}-panel` }); // edit or cut-off form opens here
    const edit = el("button", { type: "button", class: "quiet", "aria-label": `Edit ${s.name}`, "aria-expanded": "false", "aria-controls": panel.id }, "Edit");
    const toggle = s.cut_off
      ? el("button", { type: "button", class: "quiet", "aria-label": `Restore ${s.name}` }, "Restore")
      : el("button", { type: "button", class: "quiet danger", "aria-label": `Cut off ${s.name}`, "aria-expanded": "false", "aria-controls": panel.id }, "Cut off");
    const open = (button, form) => {
      panel.replaceChildren(...(form ? [form] : []));
      [edit, toggle].forEach((b) => b.hasAttribute("aria-expanded") && b.setAttribute("aria-expanded", String(b === button)));
    };
    const close = (focus) => { open(null, null); focus?.focus(); };
    edit.addEventListener("click", () => open(edit, serverForm({ org, server: s, onCancel: () => close(edit),
      onSaved: async (saved) => { said.say(`${saved.name} saved.`); await refresh([s.slug, "Edit"]); } })));
    toggle.addEventListener("click", () => {
      if (s.cut_off) {
        return busy(toggle, async () => {
          try { await api("POST", path(s, "/restore")); said.say(`${s.name} restored.`); await refresh([s.slug, "Cut off"]); } catch (e) { listErrors.show(e.message); }
        });
      }
      open(toggle, cutOffForm(s, () => close(toggle)));
    });
    const testResult = el("p", { class: "test-result", role: "status", "aria-live": "polite" });
    const test = el("button", { type: "button", class: "quiet", "aria-label": `Test the connection to ${s.name}` }, "Test connection");
    test.addEventListener("click", () => busy(test, async () => {
      testResult.className = "test-result muted";
      testResult.textContent = `Connecting to ${s.name}…`;
      try {
        const report = await api("POST", path(s, "/test"));
        testResult.className = `test-result ${report.ok ? "ok" : "bad"}`;
        testResult.textContent = connectionText(report);
      } catch (e) {
        testResult.className = "test-result bad";
        testResult.textContent = e.message;
      }
    }));
    const remove = confirmButton("Delete", `Really delete ${s.name}? Agents using its endpoint stop working at once, and its stored headers are gone for good.`, "Delete", async () => {
      try { await api("DELETE", path(s)); said.say(`${s.name} deleted.`); await refresh(["", ""]); } catch (e) { listErrors.show(e.message); return false; }
    }, { accessibleName: `Delete ${s.name}` });
    card.append(
      el("h2", { id: `srv-${s.slug}` }, s.name, " ", el("span", { class: "muted" }, `(${s.slug})`),
        s.cut_off ? el("span", { class: "badge cancel" }, "Cut off") : el("span", { class: "badge accept" }, "Active")),
      facts([
        ["URL", el("code", { class: "wrap" }, s.url)],
        ["Headers", s.auth_mode === "headers" ? (s.header_names.length ? s.header_names.join(", ") : "none") : null],
        ["Protocol era", PROTOCOL_CHOICES.find(([value]) => value === s.protocol)?.[1] ?? s.protocol],
        ["Acts as", AUTH_CHOICES.find(([value]) => value === s.auth_mode)?.[1] ?? s.auth_mode],
        ["OAuth client", s.oauth_client ? `${s.oauth_client.client_id}${s.oauth_client.issuer ? ` at ${s.oauth_client.issuer}` : ""}${s.oauth_client.has_secret ? " (with a secret)" : ""}` : null],
        ["Cut off", s.cut_off ? el("span", {}, time(s.cut_off.at), s.cut_off.reason ? ` — ${s.cut_off.reason}` : " (no reason given)") : null],
        ["Updated", time(s.updated_at)],
      ]),
      el("div", { class: "actions" }, test, edit, toggle, remove), testResult, panel);
    return card;
  };

  const cutOffForm = (s, onCancel) => {
    const reason = field("Reason (optional)", el("input", { type: "text", maxlength: 500, autocomplete: "off" }),
      { help: "Shown to admins in the server list and the audit log. Up to 500 characters." });
    const errors = banner();
    const submit = el("button", { type: "submit", class: "danger" }, `Cut off ${s.name}`);
    const form = el("form", { class: "inline-form", novalidate: true, onkeydown: (event) => {
      if (event.key === "Escape" && !submit.disabled) { event.stopPropagation(); onCancel(); }
    } }, el("h3", {}, `Really cut off ${s.name} for everyone?`),
      el("p", { class: "muted" }, "No one in the organisation can call it until an admin restores it, and whatever it is asking anyone now is cancelled."),
      errors, reason.node, el("div", { class: "actions" }, submit, el("button", { type: "button", class: "quiet", onclick: onCancel }, "Keep")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      reason.setError("");
      busy(submit, async () => {
        try {
          await api("POST", path(s, "/cut-off"), { reason: reason.control.value.trim() });
          said.say(`${s.name} is cut off.`);
          await refresh([s.slug, "Restore"]);
        } catch (error) {
          showProblem(error, (f, m) => (f === "reason" ? (reason.setError(m), true) : false), errors);
        }
      });
    });
    queueMicrotask(() => reason.control.focus());
    return form;
  };

  const register = serverForm({ org, onSaved: async (saved) => { said.say(`${saved.name} registered.`); await refresh(); } });
  root.append(el("section", { class: "card" }, heading("Servers", `The remote MCP servers ${membership.org.name}'s agents reach through Herald.`),
    said, listErrors), list, register);
  await refresh();
}

/** The registry's era settings, as the form offers them. */
const AUTH_CHOICES = [
  ["headers", "Shared headers: one account for everyone"],
  ["oauth", "Each person's own account (OAuth sign-in)"],
  ["none", "No credentials"],
];

const PROTOCOL_CHOICES = [
  ["auto", "Automatic (2025-11-25 when the server offers it, else 2026-07-28)"],
  ["2025-11-25", "2025-11-25 (sessions; servers ask by pushing questions)"],
  ["2026-07-28", "2026-07-28 (stateless; servers ask by returning input_required)"],
];

/** A connection test's report as sentences (the server's own words stay text). */
function connectionText(report) {
  const info = report.server_info ?? {};
  const who = [info.name, info.version].filter((v) => typeof v === "string" && v).join(" ");
  const speaks = report.generation ? `Herald speaks MCP ${report.protocol_version} to it` : null;
  const eras = (report.eras ?? []).length
    ? ` It offers ${report.eras.filter((e) => e.offered).map((e) => e.era).join(" and ") || "neither MCP era"}.` : "";
  if (report.ok) {
    const tools = `${report.tool_count} tool${report.tool_count === 1 ? "" : "s"}`;
    return `Connected in ${report.elapsed_ms} ms: ${[who || null, speaks, tools].filter(Boolean).join(", ")}.${eras}`;
  }
  return `Could not complete the test after ${report.elapsed_ms} ms${speaks ? ` (${speaks})` : ""}: ${report.error}${eras}`;
}

/** Register (no `server`) or edit form. Header values are write-only: never shown again. */
function serverForm({ org, server, onSaved, onCancel }) {
  const editing = Boolean(server);
  const errors = banner();
  const slug = editing ? null : field("Slug", el("input", { type: "text", autocomplete: "off", spellcheck: "false", maxlength: 40 }),
    { help: "Lowercase letters, digits and hyphens; it appears in the endpoint URL and cannot change later." });
  const name = field("Name", el("input", { type: "text", autocomplete: "off", maxlength: 100, value: server?.name }));
  const url = field("URL", el("input", { type: "url", autocomplete: "off", spellcheck: "false", value: server?.url }),
    { help: "The server's Streamable HTTP endpoint: https, or plain http to localhost. Every member sees it: put credentials in the headers, never in the URL." });
  const protocol = field("Protocol era", el("select", {}, PROTOCOL_CHOICES.map(([value, text]) =>
    el("option", { value, selected: (server?.protocol ?? "auto") === value }, text))),
    { help: "Which MCP era Herald speaks to this server. Automatic suits nearly every server; \"Test connection\" shows which eras it offers." });
  const headers = headerRows(editing
    ? `Leave these rows empty to keep the current headers (${server.header_names.join(", ") || "none"}). Filling any row replaces the whole set. A new scheme, host or port needs them entered again: stored values are never sent anywhere else.`
    : "For example Authorization: Bearer …. Values are encrypted and never shown again, not even to admins.");
  const authMode = field("Acts as", el("select", {}, AUTH_CHOICES.map(([value, text]) =>
    el("option", { value, selected: (server?.auth_mode ?? "headers") === value }, text))),
    { help: "Each person's own account: every member connects their own account at the server's sign-in page (Connections), and their calls act as them. Shared headers: everyone acts as the one account the headers name." });
  const clientId = field("Client id (optional)", el("input", { type: "text", autocomplete: "off", spellcheck: "false", value: server?.oauth_client?.client_id ?? "" }),
    { help: "Only if the server's authorization server takes neither client metadata documents nor dynamic registration: register Herald there yourself, with the redirect URI shown below, and enter its client here." });
  const clientSecret = field("Client secret", el("input", { type: "password", autocomplete: "off" }),
    { help: editing && server.oauth_client?.has_secret ? "Leave empty to keep the stored secret." : "Encrypted, never shown again." });
  const clientIssuer = field("Its authorization server", el("input", { type: "url", autocomplete: "off", spellcheck: "false", value: server?.oauth_client?.issuer ?? "" }),
    { help: "The issuer URL the client is registered at; Herald refuses to use it anywhere else." });
  const oauthBox = el("fieldset", { class: "oauth" }, el("legend", {}, "Per-person sign-in"),
    el("p", { class: "help" }, "Redirect URI: ", el("code", {}, `${location.origin}/connect/callback`)),
    clientId.node, clientSecret.node, clientIssuer.node);
  const clear = editing && server.header_names.length
    ? field("Remove all headers", el("input", { type: "checkbox" }), { help: "Sends no headers to the server from now on." }) : null;
  const fields = { slug, name, url, protocol, auth_mode: authMode, "oauth_client.client_id": clientId,
    "oauth_client.client_secret": clientSecret, "oauth_client.issuer": clientIssuer };
  const showMode = () => {
    const mode = authMode.control.value;
    headers.node.hidden = mode !== "headers";
    if (clear) clear.node.hidden = mode !== "headers";
    oauthBox.hidden = mode !== "oauth";
  };
  authMode.control.addEventListener("change", showMode);
  const submit = el("button", { type: "submit" }, editing ? "Save changes" : "Register server");
  const form = el("form", { class: editing ? "inline-form" : "card", novalidate: true },
    editing ? el("h3", {}, `Edit ${server.name}`) : el("h2", {}, "Register a server"),
    errors, slug?.node, name.node, url.node, protocol.node, authMode.node, headers.node, clear?.node, oauthBox,
    el("div", { class: "actions" }, submit, onCancel ? el("button", { type: "button", class: "quiet", onclick: onCancel }, "Cancel") : null));

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    Object.values(fields).forEach((f) => f?.setError(""));
    headers.clearErrors();
    errors.show("");
    const set = headers.collect();
    if (set === undefined) return; // a row is incomplete; its error is shown
    const newUrl = url.control.value.trim();
    // Stored header values stay with the origin they were entered for: moving
    // the server to another scheme, host or port needs them again (or none).
    if (editing && !set && !clear?.control.checked && server.header_names.length && movesOrigin(server.url, newUrl)) {
      headers.placeError("", "The URL now points to another scheme, host or port. Enter the headers again, or tick Remove all headers: stored values are never sent to a new address.");
      headers.focusFirst();
      return;
    }
    const body = editing ? { name: name.control.value.trim() }
      : { slug: slug.control.value.trim(), name: name.control.value.trim(), url: newUrl };
    // Only a changed URL is sent (the shown one may have redacted parts).
    if (editing && newUrl !== server.url) body.url = newUrl;
    body.protocol = protocol.control.value;
    body.auth_mode = authMode.control.value;
    const id = clientId.control.value.trim();
    if (body.auth_mode === "oauth" && id) {
      const secret = clientSecret.control.value;
      const keepSecret = editing && server.oauth_client?.has_secret && !secret && server.oauth_client.client_id === id;
      if (!keepSecret) {
        body.oauth_client = { client_id: id, issuer: clientIssuer.control.value.trim() || null };
        if (secret) body.oauth_client.client_secret = secret;
      }
    } else if (editing && server.oauth_client && !id) {
      body.oauth_client = null;
    }
    if (set) body.headers = set;
    else if (clear?.control.checked) body.headers = {};
    busy(submit, async () => {
      try {
        const saved = editing
          ? await api("PATCH", orgPath(org, `/servers/${encodeURIComponent(server.slug)}`), body)
          : await api("POST", orgPath(org, "/servers"), body);
        if (!editing) { form.reset(); headers.reset(); }
        await onSaved(saved);
      } catch (error) {
        showProblem(error, (f, m) => {
          if (fields[f]) return fields[f].setError(m), true;
          if (f === "headers" || f.startsWith("headers.")) return headers.placeError(f.slice("headers.".length), m);
          return false;
        }, errors);
        if (error.problem?.type?.endsWith("server-slug-taken")) slug?.setError("Another server in this organisation has this slug.");
        form.querySelector("[aria-invalid=true]")?.focus();
      }
    });
  });
  if (editing) queueMicrotask(() => name.control.focus());
  showMode();
  return form;
}

/** Whether `after` names another origin (scheme, host, port) than `before`; an unparsable URL is left to the server. */
function movesOrigin(before, after) {
  try {
    return new URL(before).origin !== new URL(after).origin;
  } catch {
    return false;
  }
}

/** Header name/value rows. collect() → object, null when all rows are empty, undefined when invalid. */
function headerRows(hint) {
  const rows = [];
  const groupError = el("p", { class: "error", "aria-live": "polite" });
  const box = el("div", { class: "header-rows" });
  const add = el("button", { type: "button", class: "quiet" }, "Add header");
  const addRow = () => {
    const name = field("Header name", el("input", { type: "text", autocomplete: "off", spellcheck: "false", placeholder: "Authorization" }));
    const value = field("Value", el("input", { type: "text", autocomplete: "off", spellcheck: "false" }), { help: "Write-only." });
    const row = { name, value, node: null };
    const removeRow = el("button", { type: "button", class: "quiet", "aria-label": "Remove this header row", onclick: () => {
      rows.splice(rows.indexOf(row), 1);
      row.node.remove();
      if (!rows.length) addRow();
      add.focus();
    } }, "Remove");
    row.node = el("div", { class: "header-row" }, name.node, value.node, removeRow);
    rows.push(row);
    box.append(row.node);
    return row;
  };
  addRow();
  add.addEventListener("click", () => addRow().name.control.focus());
  const groupId = uid("hdr");
  return {
    node: el("fieldset", { class: "headers", "aria-describedby": `${groupId}-hint` }, el("legend", {}, "Headers sent to the server"),
      el("p", { class: "help", id: `${groupId}-hint` }, hint), box, groupError, add),
    collect() {
      const out = {};
      let ok = true;
      for (const { name, value } of rows) {
        const n = name.control.value.trim();
        const v = value.control.value;
        if (!n && !v) continue;
        if (!n) { name.setError("Give the header a name, or clear its value."); ok = false; continue; }
        out[n] = v;
      }
      if (!ok) { rows.find((r) => r.name.control.getAttribute("aria-invalid"))?.name.control.focus(); return undefined; }
      return Object.keys(out).length ? out : null;
    },
    placeError(headerName, message) {
      const row = rows.find((r) => r.name.control.value.trim() === headerName);
      if (row) (/\bvalue\b/i.test(message) ? row.value : row.name).setError(message);
      else groupError.textContent = headerName ? `${headerName}: ${message}` : message;
      return true;
    },
    clearErrors() { rows.forEach((r) => { r.name.setError(""); r.value.setError(""); }); groupError.textContent = ""; },
    focusFirst() { rows[0]?.name.control.focus(); },
    reset() { rows.splice(0).forEach((r) => r.node.remove()); addRow(); },
  };
}
