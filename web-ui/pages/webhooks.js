// Admin → Webhooks: addresses Herald POSTs to when a question in the selected
// org is asked, reminded about or ends. Add one (its signing secret is shown
// exactly once, with Copy), send it a test ping, rotate its secret, delete it;
// and the delivery log (each attempt's outcome in words, Redeliver for a
// failed one). Every URL, description and error is shown as text.

import { api, el } from "../dom.js";
import { banner, busy, confirmButton, copyButton, facts, field, heading, orgPath, showProblem, status, time, timeText, uid } from "../ui.js";

const EVENTS = [
  ["question.created", "Question asked", "A server asked someone a question."],
  ["question.reminded", "Reminder", "A question is still waiting; the person was reminded."],
  ["question.ended", "Question ended", "A question was answered, declined, withdrawn or expired."],
];
const EVENT_WORDS = { ...Object.fromEntries(EVENTS.map(([code, words]) => [code, words])), ping: "Test ping" };
const STATUS_WORDS = { pending: "Pending", delivered: "Delivered", failed: "Failed" };
const LOG_LIMIT = 50;
const ALL = ""; // the log filter's "every webhook"

const eventWords = (code) => EVENT_WORDS[code] ?? code;
const statusBadge = (s) => el("span", { class: `badge delivery ${s ?? ""}` }, STATUS_WORDS[s] ?? s ?? "—");
/** What people call a webhook: its description, else its URL. */
const nameOf = (w) => w.description || w.url;

export default async function render(root, { org, membership }) {
  const said = status();
  const listErrors = banner();
  const list = el("ul", { class: "rows webhooks", tabindex: "-1", "aria-label": "Webhooks" });
  const secretSlot = el("div");
  let hooks = [];

  // ---- The delivery log ----
  const logErrors = banner();
  const logSaid = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const which = field("Show deliveries of", el("select", {}));
  which.node.classList.add("compact");
  const refreshLog = el("button", { type: "button", class: "quiet" }, "Refresh");
  const logBody = el("div", {});
  const logTitle = uid("log");

  const drawLogChoices = () => {
    const chosen = which.control.value;
    which.control.replaceChildren(el("option", { value: ALL }, "Every webhook"),
      ...hooks.map((w) => el("option", { value: w.id }, w.description ? `${w.description} (${w.url})` : w.url)));
    which.control.value = hooks.some((w) => w.id === chosen) ? chosen : ALL;
  };

  const loadLog = () => busy(refreshLog, async () => {
    logErrors.show("");
    if (!hooks.length) {
      logBody.replaceChildren(el("p", { class: "muted" }, "Add a webhook to see its deliveries here."));
      logSaid.textContent = "";
      return;
    }
    const query = new URLSearchParams({ limit: String(LOG_LIMIT) });
    if (which.control.value !== ALL) query.set("webhook", which.control.value);
    try {
      const { deliveries } = await api("GET", orgPath(org, `/webhooks/deliveries?${query}`));
      logBody.replaceChildren(deliveries.length ? deliveryTable(deliveries) : el("p", { class: "muted" }, "No deliveries yet."));
      logSaid.textContent = deliveries.length
        ? `${deliveries.length} deliver${deliveries.length === 1 ? "y" : "ies"} shown, newest first${deliveries.length >= LOG_LIMIT ? ` (the latest ${LOG_LIMIT})` : ""}.`
        : "";
    } catch (error) {
      logErrors.show(error.message);
    }
  });
  which.control.addEventListener("change", () => loadLog());
  refreshLog.addEventListener("click", () => loadLog());

  const deliveryTable = (deliveries) => el("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": logTitle },
    el("table", { class: "table deliveries stack-narrow" },
      el("caption", { class: "sr-only" }, "Deliveries, newest first"),
      el("thead", {}, el("tr", {}, ["Event", "Status", "Attempts", "Last result", "Created", "Next attempt or delivered", "Action"]
        .map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, deliveries.map(deliveryRow))));

  const deliveryRow = (d) => {
    const hook = hooks.find((w) => w.id === d.webhook_id);
    const result = [d.last_status != null ? `HTTP ${d.last_status}` : null, d.last_error].filter(Boolean).join(": ");
    const when = d.delivered_at ? ["Delivered ", time(d.delivered_at)]
      : d.next_attempt_at ? ["Next attempt ", time(d.next_attempt_at)] : [el("span", { class: "muted" }, "—")];
    let action = null;
    if (d.status === "failed") {
      const redeliver = el("button", { type: "button", class: "quiet",
        "aria-label": `Redeliver the ${eventWords(d.event)} of ${timeText(d.created_at)}` }, "Redeliver");
      redeliver.addEventListener("click", () => busy(redeliver, async () => {
        try {
          await api("POST", orgPath(org, `/webhooks/deliveries/${encodeURIComponent(d.id)}/redeliver`));
          said.say(`${eventWords(d.event)} queued to be delivered again.`);
          await loadLog();
          logBody.querySelector("table")?.closest(".table-wrap")?.focus();
        } catch (error) {
          logErrors.show(error.message);
        }
      }));
      action = redeliver;
    }
    // data-label: each cell's heading, shown beside it where the table stacks (narrow screens).
    return el("tr", { "data-id": d.id, "data-status": d.status },
      el("th", { scope: "row" }, eventWords(d.event),
        which.control.value === ALL && hook ? el("span", { class: "muted small block wrap" }, nameOf(hook)) : null),
      el("td", { "data-label": "Status" }, statusBadge(d.status)),
      el("td", { "data-label": "Attempts" }, String(d.attempts ?? 0)),
      el("td", { "data-label": "Last result", class: "wrap" }, result || el("span", { class: "muted" }, "—")),
      el("td", { "data-label": "Created" }, time(d.created_at)),
      el("td", {}, ...when), // says which itself: "Delivered …" or "Next attempt …"
      el("td", { class: action ? "" : "no-action" }, action ?? el("span", { class: "muted" }, "—")));
  };

  // ---- The webhooks ----
  const refresh = async () => {
    try {
      ({ webhooks: hooks } = await api("GET", orgPath(org, "/webhooks")));
      list.replaceChildren(...(hooks.length ? hooks.map(row) : [el("li", { class: "muted" }, "No webhooks yet.")]));
      listErrors.show("");
      drawLogChoices();
    } catch (error) {
      listErrors.show(error.message);
    }
  };

  const row = (w) => {
    const name = nameOf(w);
    const test = el("button", { type: "button", class: "quiet", "aria-label": `Send a test ping to ${name}` }, "Send test");
    test.addEventListener("click", () => busy(test, async () => {
      try {
        await api("POST", orgPath(org, `/webhooks/${encodeURIComponent(w.id)}/test`));
        said.say(`Test ping sent to ${name}; its delivery is in the log below.`);
        which.control.value = w.id;
        await loadLog();
      } catch (error) {
        listErrors.show(error.message);
      }
    }));
    const rotate = confirmButton("Rotate secret",
      `Really rotate the secret of ${name}? The current secret stops working at once: the receiver rejects Herald's requests until it has the new one.`,
      "Rotate secret", async () => {
        try {
          const { secret } = await api("POST", orgPath(org, `/webhooks/${encodeURIComponent(w.id)}/rotate-secret`));
          said.say(`The secret of ${name} was rotated.`);
          showSecret(`New secret for ${name}`, secret);
        } catch (error) {
          listErrors.show(error.message);
          return false;
        }
      }, { accessibleName: `Rotate the secret of ${name}` });
    const remove = confirmButton("Delete",
      `Really delete the webhook to ${w.url}? Herald stops sending to it at once, and its delivery log goes with it.`,
      "Delete", async () => {
        try {
          await api("DELETE", orgPath(org, `/webhooks/${encodeURIComponent(w.id)}`));
          said.say(`Webhook to ${w.url} deleted.`);
          await refresh();
          await loadLog();
          list.focus();
        } catch (error) {
          listErrors.show(error.message);
          return false;
        }
      }, { accessibleName: `Delete the webhook to ${name}` });
    const last = w.last_delivery
      ? el("span", {}, statusBadge(w.last_delivery.status), " ", time(w.last_delivery.at))
      : el("span", { class: "muted" }, "none yet");
    const by = w.created_by ? ` by ${w.created_by.name} (${w.created_by.email})` : "";
    return el("li", { class: "row webhook", "data-id": w.id },
      el("div", { class: "row-main" },
        el("code", { class: "wrap webhook-url" }, w.url),
        w.description ? el("p", { class: "webhook-description" }, w.description) : null,
        el("ul", { class: "tags", "aria-label": "Events" }, (w.events ?? []).map((e) => el("li", { class: "tag" }, eventWords(e)))),
        facts([["Created", el("span", {}, time(w.created_at), by)], ["Last delivery", last]])),
      el("div", { class: "row-controls" }, test, rotate, remove));
  };

  const showSecret = (title, secret) => {
    const code = el("code", { class: "secret" }, secret);
    const done = el("button", { type: "button", class: "quiet", onclick: () => { secretSlot.replaceChildren(); url.control.focus(); } }, "Done");
    const box = el("div", { class: "card once", role: "alert", tabindex: "-1" },
      el("h2", {}, title),
      el("p", {}, el("strong", {}, "Copy it now: Herald will not show it again."),
        " Verify each request's Herald-Signature header with it (docs/api.md, Webhooks)."),
      el("div", { class: "copy-line" }, code, copyButton(() => secret, { label: "Copy secret", target: code })),
      el("div", { class: "actions" }, done));
    secretSlot.replaceChildren(box);
    box.focus();
  };

  // ---- Add a webhook ----
  const url = field("URL", el("input", { type: "url", required: true, autocomplete: "off", spellcheck: "false", inputmode: "url" }),
    { help: "Where Herald sends each event as an HTTP POST with a JSON body, e.g. https://hooks.example.com/herald." });
  const description = field("Description (optional)", el("input", { type: "text", maxlength: 200, autocomplete: "off" }),
    { help: "What receives it, e.g. “On-call pager”; up to 200 characters." });
  const boxes = EVENTS.map(([code, words, help]) => {
    const id = uid("ev");
    const box = el("input", { id, type: "checkbox", value: code, checked: true, "aria-describedby": `${id}-help` });
    return { code, box, node: el("div", { class: "option event-option" }, box, el("label", { for: id }, words),
      el("span", { class: "help", id: `${id}-help` }, help)) };
  });
  const eventsError = el("p", { class: "error", id: uid("events-error"), "aria-live": "polite" });
  const events = el("fieldset", { class: "events", "aria-describedby": eventsError.id }, el("legend", {}, "Events"), boxes.map((b) => b.node), eventsError);
  const setEventsError = (message) => {
    eventsError.textContent = message ?? "";
    boxes.forEach((b) => (message ? b.box.setAttribute("aria-invalid", "true") : b.box.removeAttribute("aria-invalid")));
  };
  const formErrors = banner();
  const submit = el("button", { type: "submit" }, "Add webhook");
  const formTitle = uid("add");
  const form = el("form", { class: "card", novalidate: true, "aria-labelledby": formTitle },
    el("h2", { id: formTitle }, "Add a webhook"),
    el("p", { class: "muted" }, "Each request carries a Herald-Signature header made with the webhook's secret, so the receiver can tell it came from Herald."),
    formErrors, url.node, description.node, events, el("div", { class: "actions" }, submit));
  const place = (name, message) => {
    const key = String(name ?? "").replace(/\[\d+\]$/, "");
    if (key === "url") return url.setError(message), true;
    if (key === "description") return description.setError(message), true;
    if (key === "events") return setEventsError(message), true;
    return false;
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    url.setError(""); description.setError(""); setEventsError(""); formErrors.show("");
    const body = { url: url.control.value.trim() };
    if (description.control.value.trim()) body.description = description.control.value.trim();
    body.events = boxes.filter((b) => b.box.checked).map((b) => b.code);
    let ok = true;
    if (!body.url) { url.setError("Enter the address to send to."); ok = false; } else {
      try {
        const parsed = new URL(body.url);
        if (!["http:", "https:"].includes(parsed.protocol)) { url.setError("Must start with https:// or http://."); ok = false; }
      } catch {
        url.setError("Not a URL: it must start with https:// or http://."); ok = false;
      }
    }
    if (!body.events.length) { setEventsError("Choose at least one event."); ok = false; }
    if (!ok) { form.querySelector("[aria-invalid=true]")?.focus(); return; }
    busy(submit, async () => {
      try {
        const created = await api("POST", orgPath(org, "/webhooks"), body);
        form.reset();
        said.say(`Webhook to ${created.webhook.url} added.`);
        await refresh();
        await loadLog();
        showSecret(`Webhook to ${created.webhook.url} added`, created.secret);
      } catch (error) {
        showProblem(error, place, formErrors);
        form.querySelector("[aria-invalid=true]")?.focus();
      }
    });
  });

  root.append(
    el("section", { class: "card" }, heading("Webhooks",
      `Herald tells these addresses when a question in ${membership.org.name} is asked, reminded about or ends, for your own tools: a pager, a chat bot, a ticket system.`),
    said, listErrors, list),
    secretSlot,
    form,
    el("section", { class: "card", "aria-labelledby": logTitle },
      el("h2", { id: logTitle }, "Delivery log"),
      el("p", { class: "muted" }, "What Herald sent, and what each receiver answered. A delivery that has not gone through is tried again later (its next attempt is shown); Redeliver sends a failed one again now."),
      el("div", { class: "control-row log-controls" }, which.node, refreshLog),
      logErrors, logSaid, logBody));
  await refresh();
  await loadLog();
}
