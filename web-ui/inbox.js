// The inbox: questions servers ask the signed-in person, live over the
// websocket. Each question is a card in Herald's own chrome, headed by the
// server as registered in the organisation; everything the server wrote is
// shown as plain text (textContent), never as markup.

import { api, el } from "./dom.js";
import { declineMeaning, duration, explain } from "./explain.js";
import { selectOrg, storedOrg } from "./nav.js";
import { confirmButton, orgPath, time } from "./ui.js";

const RECONNECT_MAX_MS = 30_000;
/** The close code for "too many open dashboards for this person" (api/ws.rs). */
const TOO_MANY_SOCKETS = 4429;

/**
 * Draws the live inbox into `root` and keeps it current; returns `stop()`,
 * which closes the socket for good (a page that redraws calls it first).
 */
export function startInbox(root, { title = "Inbox", level = "h1" } = {}) {
  const cards = new Map(); // id -> { record, node, timer }
  const list = el("div", { class: "inbox", "aria-label": "Questions waiting for you" });
  const empty = el("p", { class: "muted" }, "Nothing is waiting for you. Questions from servers appear here as they are asked.");
  const live = el("div", { class: "sr-only", "aria-live": "polite", role: "status" });
  const notices = el("div", { class: "notices" });
  // Notes: what Herald's policy answered for the person, until they dismiss them.
  const notes = startNotes();
  const status = el("p", { class: "status muted", "aria-live": "polite" });
  // A notification's link (`/?question=<id>`): that card, once it arrives, or why it will not.
  const linked = deepLink();
  root.replaceChildren(...[el(level, {}, title), status, linked.node, notices, notes.node, empty, list, live].filter(Boolean));
  let stopped = false;

  const updateCount = () => {
    const n = cards.size;
    document.title = n ? `(${n}) Herald` : "Herald";
    empty.hidden = n > 0;
  };

  const remove = (id, why) => {
    const card = cards.get(id);
    if (!card) return;
    clearInterval(card.timer);
    cards.delete(id);
    const note = el("p", { class: "gone", role: "note" }, why);
    card.node.replaceChildren(note);
    card.node.classList.add("ended");
    setTimeout(() => card.node.remove(), 4000);
    updateCount();
  };

  let socket;
  let backoff = 1000;
  const send = (message) => socket?.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));
  // Whether the person is looking: Herald notifies them elsewhere only while no dashboard is visible.
  const presence = () => send({ type: "presence", visible: document.visibilityState === "visible" });
  document.addEventListener("visibilitychange", presence);

  const connect = () => {
    if (stopped) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v1/ws`;
    try {
      socket = new WebSocket(url);
    } catch {
      // Refused outright (never seen in practice, but it must not end the retries).
      socket = null;
      return retry();
    }
    socket.addEventListener("open", () => {
      backoff = 1000;
      status.textContent = "";
      // The server resends everything pending, and the open notes: start from a clean slate.
      for (const id of [...cards.keys()]) {
        clearInterval(cards.get(id).timer);
        cards.get(id).node.remove();
        cards.delete(id);
      }
      notes.clear();
      updateCount();
      presence();
      linked.connected();
    });
    socket.addEventListener("message", (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      switch (message.type) {
        case "elicitation.created":
          if (!cards.has(message.id)) {
            const card = renderCard(message, send, linked.via(message.id));
            cards.set(message.id, card);
            list.prepend(card.node);
            live.textContent = message.asked_by === "herald"
              ? `Herald asks you to connect to ${message.server.name}`
              : `New question from ${message.server.name}`;
            updateCount();
            linked.arrived(message.id, card.node);
          }
          break;
        case "elicitation.resolved":
          remove(message.id, endingNote(message));
          break;
        case "elicitation.explained":
          notes.add(message);
          break;
        case "note.dismissed":
          message.ids?.forEach((id) => notes.gone(id));
          break;
        case "ack":
          remove(message.id, sentNote(cards.get(message.id)));
          break;
        case "error":
          cards.get(message.id)?.showError(message);
          break;
        case "notice":
          notices.prepend(renderNotice(message));
          break;
      }
    });
    socket.addEventListener("close", (event) => (event.code === TOO_MANY_SOCKETS ? tooMany(event.reason) : retry()));
  };
  // Over the per-person cap: reconnecting by itself would only be refused again.
  const tooMany = (reason) => {
    if (stopped) return;
    status.replaceChildren(
      el("span", { role: "alert" }, `This tab is not receiving questions: ${reason || "too many dashboards are open for you"}.`),
      " ",
      el("button", { type: "button", class: "quiet", onclick: () => { status.textContent = ""; connect(); } }, "Reconnect"));
  };
  const retry = () => {
    if (stopped) return;
    status.textContent = `Connection lost; reconnecting in ${Math.round(backoff / 1000)} s…`;
    setTimeout(connect, backoff);
    backoff = Math.min(backoff * 2, RECONNECT_MAX_MS);
  };
  connect();
  updateCount();
  return () => {
    stopped = true;
    document.removeEventListener("visibilitychange", presence);
    linked.stop();
    socket?.close();
    cards.forEach((card) => clearInterval(card.timer));
    document.title = "Herald";
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long a linked question that is still pending may take to arrive before Herald looks again. */
const LINK_RECHECK_MS = 4000;

/**
 * The question a notification linked to (`?question=<id>`): scrolled into view and focused
 * once its card arrives; if it has ended (or is not the person's), a note saying so, with the
 * way to the history. Only the first arrival counts; the parameters leave the address after.
 * `&via=push` (a browser notification's link): `via(id)` says "push" for that question, so an
 * answer to it is recorded as given through push.
 */
function deepLink() {
  const params = new URLSearchParams(location.search);
  const id = params.get("question");
  const viaPush = params.get("via") === "push";
  if (!id) return { node: null, connected() {}, arrived() {}, stop() {}, via() { return null; } };
  const node = el("div", { class: "deep-link", role: "status", hidden: true });
  let done = false;
  let timer = null;
  let checks = 0;
  const finish = () => {
    done = true;
    clearTimeout(timer);
    const query = new URLSearchParams(location.search);
    query.delete("question");
    query.delete("via");
    const rest = query.toString();
    history.replaceState(history.state, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
  };
  const say = (text, org) => {
    const dismiss = el("button", { type: "button", class: "quiet", onclick: () => { node.hidden = true; } }, "Dismiss");
    const historyLink = el("a", { href: "/history", class: "button-link", onclick: () => org && selectOrg(org) }, "See your history");
    node.replaceChildren(el("p", {}, text), el("div", { class: "actions" }, historyLink, dismiss));
    node.hidden = false;
  };
  // Which of the person's orgs holds it (the selected one first): its record, or null.
  const find = async () => {
    if (!UUID.test(id)) return null;
    const { memberships = [] } = await api("GET", "/me");
    const orgs = memberships.map((m) => m.org.slug).sort((a, b) => (b === storedOrg()) - (a === storedOrg()));
    for (const org of orgs) {
      try {
        return await api("GET", orgPath(org, `/elicitations/${encodeURIComponent(id)}`));
      } catch (error) {
        if (error.problem?.status !== 404 && error.problem?.status !== 403) throw error;
      }
    }
    return null;
  };
  const check = async () => {
    if (done) return;
    checks += 1;
    let record;
    try {
      record = await find();
    } catch {
      return; // Herald unreachable: the socket's reconnect tries again
    }
    if (done) return;
    if (record?.status === "pending") {
      // On its way over the socket; look again if it has not come by then (it may end meanwhile).
      if (checks < 3) timer = setTimeout(check, LINK_RECHECK_MS);
      return;
    }
    finish();
    if (record) say("This question has already ended.", record.org);
    else say("This question was not found: it may have been asked of someone else, or in an organisation you have left.");
  };
  return {
    node,
    connected() {
      // The socket sends what is pending right after it opens: give it a moment first.
      if (!done) { clearTimeout(timer); timer = setTimeout(check, 1000); }
    },
    arrived(questionId, card) {
      if (done || questionId !== id) return;
      finish();
      node.hidden = true;
      requestAnimationFrame(() => {
        card.scrollIntoView({ block: "center" });
        card.focus({ preventScroll: true });
      });
    },
    stop() { clearTimeout(timer); done = true; },
    via(questionId) { return viaPush && questionId === id ? "push" : null; },
  };
}

function endingNote({ decided_by, reason, action }) {
  if (reason === "connected") return "Connected. The call that was waiting goes on as you.";
  if (decided_by === "user") return "Answered in another tab.";
  if (decided_by === "timeout") return "This question expired.";
  if (decided_by === "server") return "The server withdrew this question.";
  if (decided_by === "caller") return "The agent that asked is gone, so the question was cancelled.";
  if (decided_by === "policy") return "Your organisation's policy ended this question; the note above says why.";
  return `This question ended (${reason ?? action}).`;
}

/** What the person's own answer did, once Herald has it. */
function sentNote(card) {
  const record = card?.record;
  switch (card?.sent) {
    case "decline": {
      const secs = record?.policy?.decline_remembered_secs;
      return `Declined. Herald will decline this question for you if ${record?.server?.name ?? "the server"} asks it again` +
        (secs ? ` within ${duration(secs)}.` : ".");
    }
    case "cancel": return "Dismissed, without an answer.";
    case "not-now": return "Not now: the call that was waiting ends. Connect any time on the Connections page.";
    case "accept": return record?.mode === "url" ? "Sent. The server hears that you agreed to open the address." : "Sent.";
    default: return "Sent.";
  }
}

/**
 * The notes about what the policy answered for the person. Notes of one
 * server, rule and organisation are one note with a count (a muted server that
 * keeps asking is one line, not a hundred); dismissing it dismisses them all,
 * here and, through the server, in every other tab.
 */
function startNotes() {
  const node = el("section", { class: "notes", "aria-label": "What Herald answered for you", hidden: true });
  const groups = new Map(); // key -> { records: Map(id -> record), node }
  const byId = new Map(); // id -> key
  const adminOrgs = () => (document.body.dataset.adminOrgs ?? "").split(" ");

  const draw = (key) => {
    const group = groups.get(key);
    const records = [...group.records.values()].sort((a, b) => String(b.resolved_at).localeCompare(String(a.resolved_at)));
    const latest = records[0];
    const words = explain(latest);
    const org = latest.org;
    const say = el("p", { class: "muted", role: "status" });
    const busy = (button, work) => async () => {
      button.disabled = true;
      say.textContent = "";
      try { await work(); } catch (error) { say.textContent = error.message; button.disabled = false; }
    };
    const dismissAll = () => Promise.all(records.map((r) =>
      api("POST", `/orgs/${encodeURIComponent(org)}/elicitations/${encodeURIComponent(r.id)}/dismiss-note`)));
    const actions = [];
    for (const way of words.ways) {
      if (way === "ask_again") {
        const b = el("button", { type: "button" }, "Ask me again");
        b.addEventListener("click", busy(b, async () => {
          await Promise.all(records.map((r) =>
            api("POST", `/orgs/${encodeURIComponent(org)}/elicitations/${encodeURIComponent(r.id)}/ask-again`)));
          say.textContent = `${latest.server.name} will be asked again next time.`;
          await dismissAll();
        }));
        actions.push(b);
      }
      if (way === "unmute") {
        const b = el("button", { type: "button", class: "quiet" }, `Unmute ${latest.server.name}`);
        b.addEventListener("click", busy(b, async () => {
          try {
            await api("DELETE", `/orgs/${encodeURIComponent(org)}/mutes/${encodeURIComponent(latest.server.slug)}`);
          } catch (error) {
            if (error.problem?.status !== 404) throw error; // already unmuted
          }
          say.textContent = `${latest.server.name} is unmuted.`;
        }));
        actions.push(b);
      }
      const admin = adminOrgs().includes(org);
      if (way === "cut_off" && admin) {
        actions.push(cutOffControl(org, latest.server, (text) => { say.textContent = text; }));
      }
      if (way === "policy" && admin) actions.push(el("a", { href: "/admin/policy", class: "button-link" }, "Review the policy"));
      if (way === "servers" && admin) actions.push(el("a", { href: "/admin/servers", class: "button-link" }, "Go to Servers"));
    }
    const dismiss = el("button", { type: "button", class: "quiet" }, records.length > 1 ? "Dismiss these notes" : "Dismiss note");
    dismiss.addEventListener("click", busy(dismiss, dismissAll));
    const more = records.length > 1 ? ` · ${records.length} questions like this` : "";
    const titleId = `note-${latest.id}`;
    const fresh = el("article", { class: "note", "aria-labelledby": titleId, "data-rule": words.rule ?? "" },
      el("h2", { id: titleId }, words.title),
      el("p", {}, words.text),
      words.advice ? el("p", { class: "muted" }, words.advice) : null,
      el("p", { class: "muted small" }, latest.server.name, latest.tool ? ` · ${latest.tool}` : "", " · ",
        time(latest.resolved_at), more),
      el("div", { class: "actions" }, actions, dismiss),
      say);
    if (group.node) group.node.replaceWith(fresh); else node.prepend(fresh);
    group.node = fresh;
    node.hidden = false;
  };

  return {
    node,
    add(record) {
      const key = `${record.org}\u0000${record.server?.slug}\u0000${record.reason}`;
      if (!groups.has(key)) groups.set(key, { records: new Map(), node: null });
      const group = groups.get(key);
      group.records.set(record.id, record);
      byId.set(record.id, key);
      draw(key);
      // The newest note goes on top.
      if (node.firstChild !== group.node) node.prepend(group.node);
    },
    gone(id) {
      const key = byId.get(id);
      if (key === undefined) return;
      byId.delete(id);
      const group = groups.get(key);
      group.records.delete(id);
      if (group.records.size) return draw(key);
      group.node.remove();
      groups.delete(key);
      node.hidden = groups.size === 0;
    },
    clear() {
      groups.clear();
      byId.clear();
      node.replaceChildren();
      node.hidden = true;
    },
  };
}

function renderNotice(notice) {
  const node = el("div", { class: "notice", role: "alert" }, el("p", {}, notice.message));
  const adminOrgs = (document.body.dataset.adminOrgs ?? "").split(" ");
  if (notice.kind === "credential_ask_blocked" && notice.server && adminOrgs.includes(notice.org)) {
    const say = el("p", { class: "muted", role: "status" });
    node.append(cutOffControl(notice.org, notice.server, (text) => { say.textContent = text; }), say);
  }
  node.append(el("button", { type: "button", class: "quiet", onclick: () => node.remove() }, "Dismiss notice"));
  return node;
}

/**
 * An admin's one-click cut-off of `server` in `org`: destructive and for
 * everyone, so it asks once more, in place, before it is done (the
 * dashboard's one confirmation, `confirmButton`). `tell(text)` reports the outcome.
 */
function cutOffControl(org, server, tell) {
  const control = confirmButton(`Cut ${server.name} off for everyone`,
    `Really cut ${server.name} off for everyone in the organisation? Its calls stop at once and its questions are ` +
      "cancelled, until an admin restores it.",
    "Cut off",
    async () => {
      try {
        await api("POST", `/orgs/${encodeURIComponent(org)}/servers/${encodeURIComponent(server.slug)}/cut-off`,
          { reason: "asked for a credential" });
      } catch (error) {
        tell(error.message);
        return false;
      }
      control.replaceChildren();
      tell(`${server.name} is cut off for the organisation.`);
      return true;
    });
  return control;
}

function hostOf(url) {
  try { return new URL(url).host; } catch { return url; }
}

/** `via`: "push" when the page was opened from a browser notification about this question. */
function renderCard(record, send, via = null) {
  const titleId = `q-${record.id}-title`;
  const node = el("article", { class: "card question", "aria-labelledby": titleId, tabindex: "-1" });
  const countdown = el("span", { class: "muted" });
  const tick = () => {
    const left = Math.max(0, new Date(record.expires_at) - Date.now());
    const m = Math.floor(left / 60000);
    const s = Math.floor((left % 60000) / 1000);
    countdown.textContent = `${m}:${String(s).padStart(2, "0")} left`;
  };
  tick();
  const timer = setInterval(tick, 1000);

  const byHerald = record.asked_by === "herald";
  const header = byHerald
    // Herald's own question, for the server named: never shown as the server's words.
    ? el("header", { class: "qhead" },
      el("p", { class: "asker" }, el("span", { class: "badge herald" }, "Herald asks")),
      el("h2", { id: titleId }, `Connect to ${record.server.name}`),
      el("p", { class: "muted" }, hostOf(record.server.url), record.tool ? ` · ${record.tool}` : "", " · ", countdown))
    : el("header", { class: "qhead" },
      el("h2", { id: titleId }, record.server.name),
      el("p", { class: "muted" }, hostOf(record.server.url), record.tool ? ` · ${record.tool}` : "", " · ", countdown));
  const message = el("p", { class: "message" }, record.message);
  const banner = el("div", { class: "banner", role: "alert", hidden: true });
  node.append(header);
  const warning = record.policy?.credential_warning;
  if (warning?.length) {
    // What the detector found, in its own words (which field, which rule).
    const found = [...new Set(warning.map((hit) => hit.explanation).filter(Boolean))];
    node.append(el("div", { class: "warning", role: "alert" },
      el("strong", {}, "This looks like a request for a credential. "),
      "Herald's policy lets it through with this warning. Never type passwords, keys or codes into a server's form.",
      found.length ? el("p", {}, "Herald found:") : null,
      found.length ? el("ul", { class: "found" }, found.map((text) => el("li", {}, text))) : null));
  }
  node.append(message, banner);

  const card = { record, node, timer, sent: null };
  const respond = (action, content) => {
    card.sent = action;
    send({ type: "respond", id: record.id, action, ...(content ? { content } : {}), ...(via ? { via } : {}) });
  };
  // Before a click: Decline is remembered, Dismiss is not.
  const meaningId = `q-${record.id}-meaning`;
  const meaning = el("p", { class: "help meaning", id: meaningId }, byHerald
    ? "This question ends by itself once you have connected, and the call goes on. Not now ends the call; Herald remembers nothing, and asks again on the next call."
    : declineMeaning(record));
  const fieldErrors = {};
  let collect = () => null;
  if (byHerald) {
    node.append(renderConnect(record, () => { respond("decline"); card.sent = "not-now"; }, meaningId), meaning);
  } else if (record.mode === "url") {
    node.append(renderUrl(record, respond, meaningId), meaning);
  } else {
    const fields = record.form?.fields ?? [];
    const controls = fields.map((field) => renderField(record.id, field, fieldErrors));
    collect = () => {
      const content = {};
      for (const control of controls) {
        const value = control.value();
        if (value !== undefined) content[control.name] = value;
      }
      return content;
    };
    const formNode = el("form", { class: "fields", novalidate: true, onsubmit: (e) => {
      e.preventDefault();
      Object.values(fieldErrors).forEach((p) => (p.textContent = ""));
      const invalid = controls.map((c) => c.check()).filter(Boolean);
      if (invalid.length) { invalid[0].focus(); return; }
      respond("accept", collect());
    } }, controls.map((c) => c.node),
      el("div", { class: "actions" },
        el("button", { type: "submit" }, "Submit"),
        el("button", { type: "button", class: "quiet", "aria-describedby": meaningId, onclick: () => respond("decline") }, "Decline"),
        el("button", { type: "button", class: "quiet", "aria-describedby": meaningId, onclick: () => respond("cancel") }, "Dismiss")),
      meaning);
    node.append(formNode);
  }
  if (!byHerald) node.append(el("div", { class: "actions secondary" },
    el("button", { type: "button", class: "link", onclick: async (e) => {
      e.target.disabled = true;
      try {
        await api("POST", `/orgs/${encodeURIComponent(record.org)}/mutes`, { server: record.server.slug });
        respond("decline");
      } catch (error) {
        banner.textContent = error.message; banner.hidden = false; e.target.disabled = false;
      }
    } }, `Mute ${record.server.name}`)));
  node.addEventListener("keydown", (e) => { if (e.key === "Escape") respond("cancel"); });

  return Object.assign(card, {
    showError(error) {
      let placed = false;
      for (const { field, message: text } of error.errors ?? []) {
        if (fieldErrors[field]) { fieldErrors[field].textContent = text; placed = true; }
      }
      if (!placed) { banner.textContent = error.detail; banner.hidden = false; }
    },
  });
}

function renderUrl(record, respond, meaningId) {
  let parsed;
  try { parsed = new URL(record.url); } catch { parsed = null; }
  const shown = parsed
    ? el("p", { class: "url" }, `${parsed.protocol}//`, el("strong", {}, parsed.host), `${parsed.pathname}${parsed.search}${parsed.hash}`)
    : el("p", { class: "url" }, record.url);
  const box = el("div", {}, el("p", { class: "muted" }, "The server asks you to open this address:"), shown);
  if (record.policy?.url_flags?.length) {
    box.append(el("div", { class: "warning", role: "alert" }, el("strong", {}, "Check this address carefully. "),
      record.policy.url_flags.map((f) => f.type === "confusable" ? `It looks like ${f.looks_like} but is not.` : flagText(f.type)).join(" ")));
  }
  box.append(el("div", { class: "actions" },
    el("button", { type: "button", onclick: () => {
      window.open(record.url, "_blank", "noopener,noreferrer");
      respond("accept");
    } }, "Open in a new tab"),
    el("button", { type: "button", class: "quiet", "aria-describedby": meaningId, onclick: () => respond("decline") }, "Decline"),
    el("button", { type: "button", class: "quiet", "aria-describedby": meaningId, onclick: () => respond("cancel") }, "Dismiss")));
  return box;
}

/** Herald's question for a call to a server that acts as each person: its own connect page. */
function renderConnect(record, notNow, meaningId) {
  const status = el("p", { class: "muted", role: "status" });
  return el("div", {},
    el("p", {}, `Herald's connect page sends you to the sign-in page of ${record.server.name} and brings you back. Nothing you type there passes through the agent.`),
    el("div", { class: "actions" },
      el("button", { type: "button", onclick: () => {
        // Same origin, Herald's own page: it ends this question when the connection is made.
        window.open(record.url, "_blank", "noopener");
        status.textContent = `Waiting for you to finish signing in to ${record.server.name} in the new tab…`;
      } }, `Connect to ${record.server.name}`),
      el("button", { type: "button", class: "quiet", "aria-describedby": meaningId, onclick: notNow }, "Not now")),
    status);
}

function flagText(type) {
  return {
    punycode: "Its domain is written in punycode and may imitate another.",
    mixed_script: "Its domain mixes alphabets.",
    ip_address: "It points at a raw IP address.",
    non_default_port: "It uses an unusual port.",
  }[type] ?? "";
}

/**
 * One form field as the natural control; `value()` reads it, `check()` validates it.
 * Shared with the console, which draws a tool's flat input schema the same way.
 */
export function renderField(qid, field, fieldErrors) {
  const id = `q-${qid}-${field.name}`;
  const help = field.description ? el("p", { class: "help", id: `${id}-help` }, field.description) : null;
  const error = el("p", { class: "error", id: `${id}-error`, "aria-live": "polite" });
  fieldErrors[field.name] = error;
  const described = [help ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(" ");
  const label = el("label", { for: id }, field.title ?? field.name, field.required ? el("span", { class: "req", "aria-hidden": "true" }, " *") : null);
  const wrap = (control, read, check) => ({
    name: field.name,
    node: el("div", { class: "field" }, label, control, help, error),
    value: read,
    check: () => {
      const problem = check();
      error.textContent = problem ?? "";
      return problem ? control : null;
    },
  });
  const kind = field.kind;
  if (kind === "boolean") {
    const input = el("input", { id, type: "checkbox", "aria-describedby": described, checked: field.default === true });
    return { ...wrap(input, () => input.checked, () => null),
      node: el("div", { class: "field check" }, input, label, help, error) };
  }
  if (kind === "single_select") {
    const select = el("select", { id, "aria-describedby": described, required: field.required },
      field.required && field.default == null ? el("option", { value: "" }, "Choose…") : el("option", { value: "" }, "—"),
      field.options.map((o) => el("option", { value: o.value, selected: o.value === field.default }, o.title ?? o.value)));
    return wrap(select, () => (select.value === "" ? undefined : select.value),
      () => (field.required && select.value === "" ? "Choose one." : null));
  }
  if (kind === "multi_select") {
    const chosen = new Set(field.default ?? []);
    const boxes = field.options.map((o, i) => {
      const boxId = `${id}-${i}`;
      const box = el("input", { id: boxId, type: "checkbox", value: o.value, checked: chosen.has(o.value) });
      return { box, node: el("div", { class: "option" }, box, el("label", { for: boxId }, o.title ?? o.value)) };
    });
    const group = el("fieldset", { id, "aria-describedby": described }, el("legend", {}, field.title ?? field.name), boxes.map((b) => b.node));
    const read = () => boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    return { name: field.name, node: el("div", { class: "field" }, group, help, error), value: read,
      check: () => {
        const n = read().length;
        let problem = null;
        if (field.min_items != null && n < field.min_items) problem = `Choose at least ${field.min_items}.`;
        if (field.max_items != null && n > field.max_items) problem = `Choose at most ${field.max_items}.`;
        error.textContent = problem ?? "";
        return problem ? boxes[0]?.box : null;
      } };
  }
  if (kind === "number") {
    const input = el("input", { id, type: "number", "aria-describedby": described, required: field.required,
      min: field.minimum, max: field.maximum, step: field.integer ? "1" : "any", value: field.default ?? "" });
    return wrap(input, () => (input.value === "" ? undefined : field.integer ? parseInt(input.value, 10) : Number(input.value)),
      () => nativeProblem(input));
  }
  const type = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" }[field.format] ?? "text";
  let value = field.default ?? "";
  if (type === "datetime-local" && value) value = String(value).slice(0, 16);
  const input = el("input", { id, type, "aria-describedby": described, required: field.required,
    minlength: field.min_length, maxlength: field.max_length, value });
  return wrap(input, () => {
    if (input.value === "") return undefined;
    // The browser's local date-time becomes the RFC 3339 the schema asks for.
    return type === "datetime-local" ? new Date(input.value).toISOString() : input.value;
  }, () => nativeProblem(input));
}

function nativeProblem(input) {
  return input.checkValidity() ? null : input.validationMessage;
}
