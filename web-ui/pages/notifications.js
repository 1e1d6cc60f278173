// Notifications: how Herald tells the signed-in person about a question while
// they are away from the dashboard (by e-mail or browser push, after a delay,
// with one reminder, never in quiet hours). The person's own choices, each one left
// empty meaning "my organisation's default"; what applies in each of their
// organisations; browser push on this device and the list of their devices
// (pages/push-devices.js); and, for every org they administer, that org's
// defaults. Everything a person or the server wrote is shown as text.

import { api, el } from "../dom.js";
import { isAdmin } from "../nav.js";
import { pushSection } from "./push-devices.js";
import { banner, busy, field, heading, isoTimeZones, localTimeZone, orgPath, showProblem, status, time, uid } from "../ui.js";

/** Herald's own defaults, where an org sets none (the backend's, repeated for the help lines). */
const HERALD = { delay_secs: 20, reminder_percent: 80 };
const DELAY = [0, 3600];
const REMINDER = [10, 95];
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export default async function render(root, { account }) {
  const errors = banner();
  let prefs = await api("GET", "/me/notifications");

  const intro = el("section", { class: "card" },
    heading("Notifications", "When a server asks you something and you are not looking, Herald can tell you by e-mail and with a notification in your browser."),
    el("ul", { class: "explain-list" },
      el("li", {}, "Herald notifies you only when you are not looking at the dashboard: while a dashboard tab of yours is visible, questions appear there and nothing is sent."),
      el("li", {}, `It waits a little first (the delay: ${HERALD.delay_secs} seconds unless changed), in case you come back in time.`),
      el("li", {}, `If the question is still waiting, it reminds you once, when that share of the question's time has passed (${HERALD.reminder_percent}% unless changed; 0 means no reminder).`),
      el("li", {}, "During quiet hours nothing is sent. Whatever is still waiting when they end is sent then."),
      el("li", {}, "Each notification links to the question in your inbox.")));

  const emailNote = () => (prefs.email_available
    ? el("div", {},
      el("p", { class: "muted" }, "E-mails go to ", el("strong", {}, prefs.address ?? account.user.email), "."),
      lastEmailTrouble(prefs.last_email))
    : null); // the e-mail choice's help line says it is not set up
  const emailSlot = el("div", {}, emailNote());

  const pushAvailable = prefs.push_available !== false;
  const ownTitle = uid("own");
  const own = prefsForm({
    scope: "own",
    titleId: ownTitle,
    emailAvailable: prefs.email_available,
    pushAvailable,
    submitLabel: "Save",
    save: async (body) => {
      prefs = await api("PUT", "/me/notifications", body);
      drawApplied();
      emailSlot.replaceChildren(...[emailNote()].filter(Boolean));
      return prefs.own;
    },
  });
  own.fill(prefs.own);
  const ownCard = el("section", { class: "card", "aria-labelledby": ownTitle },
    el("h2", { id: ownTitle }, "Your choices"),
    el("p", { class: "muted" }, "Leave a choice at its default to follow your organisation's; what you set here wins in every organisation."),
    emailSlot, own.node);

  const appliedTitle = uid("applied");
  const applied = el("div", {});
  const drawApplied = () => {
    const rows = prefs.by_org ?? [];
    applied.replaceChildren(rows.length
      ? el("div", { class: "table-wrap" }, el("table", { class: "table applied stack-narrow" },
        el("caption", { class: "sr-only" }, "What applies to you in each organisation"),
        el("thead", {}, el("tr", {}, ["Organisation", "E-mail", "Browser push", "Delay", "Reminder", "Quiet hours"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, rows.map((r) => el("tr", { "data-org": r.org },
          el("th", { scope: "row" }, r.name ?? r.org),
          ...summaryCells(r.effective, prefs.email_available, pushAvailable))))))
      : el("p", { class: "muted" }, "You are not in any organisation yet. These apply: ",
        summaryText(prefs.effective, prefs.email_available, pushAvailable), "."));
  };
  drawApplied();
  const appliedCard = el("section", { class: "card", "aria-labelledby": appliedTitle },
    el("h2", { id: appliedTitle }, "What applies in each organisation"),
    el("p", { class: "muted" }, "Your choices, and your organisation's defaults where you left one at its default."),
    applied);

  // The defaults of every org the person administers.
  const adminOf = account.memberships.filter(isAdmin);
  const defaultCards = adminOf.map((m) => orgDefaults(m, prefs.email_available, pushAvailable, async () => {
    prefs = await api("GET", "/me/notifications");
    drawApplied();
  }));

  // Browser push on this device, and every device of the person's.
  const push = pushSection({ pushAvailable });

  root.append(intro, errors, ownCard, ...push.nodes, appliedCard, ...defaultCards.map((d) => d.node));
  await Promise.all([push.load(), ...defaultCards.map((d) => d.load())]);
}

/** An org's defaults, for its admins: the same choices, for everyone who leaves theirs at the default. */
/** A warning when the latest mail to the person did not get through (null when it did, or none was sent). */
function lastEmailTrouble(last) {
  if (!last || last.status === "delivered") return null;
  const why = last.error ? `: ${last.error}` : ".";
  const next = last.status === "retrying"
    ? "Herald will try again."
    : "Herald gave up on it; the question stayed in your inbox. If this keeps happening, check your address with your operator.";
  return el("p", { class: "warning", role: "status" },
    "Your latest notification e-mail (", time(last.at), ") did not get through", why, " ", next);
}

function orgDefaults(membership, emailAvailable, pushAvailable, onSaved) {
  const { slug, name } = membership.org;
  const titleId = uid("defaults");
  const errors = banner();
  const changed = el("p", { class: "muted small" });
  const form = prefsForm({
    scope: "org",
    titleId,
    emailAvailable,
    pushAvailable,
    submitLabel: "Save defaults",
    save: async (body) => {
      const stored = await api("PUT", orgPath(slug, "/notifications/defaults"), body);
      drawChanged(stored);
      await onSaved().catch(() => {});
      return stored.defaults;
    },
  });
  const drawChanged = (stored) => {
    changed.replaceChildren(...(stored.updated_at
      ? ["Last changed ", time(stored.updated_at),
        stored.updated_by ? ` by ${stored.updated_by.name} (${stored.updated_by.email})` : "", "."]
      : ["Never changed: Herald's defaults apply."]));
  };
  const body = el("div", { hidden: true }, changed, form.node);
  const node = el("section", { class: "card org-defaults", "aria-labelledby": titleId, "data-org": slug },
    el("h2", { id: titleId }, `Defaults for ${name}`),
    el("p", { class: "muted" }, `For everyone in ${name} who leaves a choice at its default. Each person's own choices win. You see this as ${membership.role} of ${name}.`),
    errors, body);
  const load = async () => {
    try {
      const stored = await api("GET", orgPath(slug, "/notifications/defaults"));
      form.fill(stored.defaults ?? {});
      drawChanged(stored);
      body.hidden = false;
    } catch (error) {
      errors.show(error.message);
    }
  };
  return { node, load };
}

/**
 * The choices as a form: e-mail and browser push (each default / on / off), the delay, the
 * reminder and quiet hours. `scope` "own" (empty = the organisation's default) or "org" (empty = Herald's default).
 * `save(body)` stores the body and returns what was stored, to show; field errors from a 422
 * land next to their fields. Returns { node, fill(values) }.
 */
/** A choice of On, Off or the default (empty: the stored value is null). */
function onOffSelect(defaultLabel, disabled) {
  return el("select", { disabled },
    el("option", { value: "" }, defaultLabel),
    el("option", { value: "on" }, "On"),
    el("option", { value: "off" }, "Off"));
}
const onOffValue = (stored) => (stored === true ? "on" : stored === false ? "off" : "");
const onOffChoice = (value) => (value === "on" ? true : value === "off" ? false : null);

function prefsForm({ scope, titleId, emailAvailable, pushAvailable, submitLabel, save }) {
  const mine = scope === "own";
  const theDefault = mine ? "your organisation's default" : "Herald's default";
  const errors = banner();
  const said = status();

  const email = field(mine ? "E-mail me about questions" : "E-mail people about questions",
    onOffSelect(mine ? "Organisation's default" : "Herald's default", !emailAvailable),
  { help: !emailAvailable ? "E-mail is not set up on this Herald; ask your operator."
    : mine ? "The default is what your organisation chose (see the table below)."
      : "Off sends no one an e-mail unless they turn it on for themselves." });

  // Like e-mail: empty (null) follows the default, which is on.
  const push = field(mine ? "Browser push notifications to my devices" : "Browser push notifications to people's devices",
    onOffSelect(mine ? "Organisation's default" : "Herald's default (on)", !pushAvailable),
  { help: !pushAvailable ? "Browser push is not set up on this Herald; ask your operator."
    : mine ? "To the browsers turned on under “This device” (see Devices below). The default is what your organisation chose."
      : "Off sends no one a browser notification unless they turn it on for themselves." });

  const delay = field("Delay before notifying (seconds)",
    el("input", { type: "number", min: DELAY[0], max: DELAY[1], step: 1, inputmode: "numeric", autocomplete: "off" }),
    { help: `${DELAY[0]} to ${DELAY[1]}. How long a question waits, unseen, before Herald tells ${mine ? "you" : "the person"}. Empty: ${theDefault}${mine ? "" : ` (${HERALD.delay_secs} seconds)`}.` });
  const reminder = field("Reminder (% of the question's time)",
    el("input", { type: "number", min: 0, max: REMINDER[1], step: 1, inputmode: "numeric", autocomplete: "off" }),
    { help: `0 for no reminder, else ${REMINDER[0]} to ${REMINDER[1]}. With 80, a question that waits 10 minutes is reminded about after 8. Empty: ${theDefault}${mine ? "" : ` (${HERALD.reminder_percent}%)`}.` });

  const quietOn = field(mine ? "Set my own quiet hours" : "Set quiet hours", el("input", { type: "checkbox" }),
    { help: mine ? "Off: your organisation's quiet hours apply, if it has any." : "Off: no quiet hours, for everyone who sets none of their own." });
  const start = field("Quiet from", el("input", { type: "time", required: true }), { help: "When they begin, e.g. 22:00 (10 PM)." });
  const end = field("Quiet until", el("input", { type: "time", required: true }), { help: "When they end, e.g. 07:00; earlier than the start means the next morning." });
  const zone = field("Time zone", el("select", { required: true }));
  const fillZones = (chosen) => {
    zone.control.replaceChildren(...isoTimeZones(chosen).map((z) => el("option", { value: z, selected: z === chosen }, z.replaceAll("_", " "))));
    zone.control.value = chosen;
  };
  fillZones(localTimeZone());
  const quietFields = el("div", { class: "quiet-grid" }, start.node, end.node, zone.node);
  const showQuiet = () => { quietFields.hidden = !quietOn.control.checked; };
  quietOn.control.addEventListener("change", () => { showQuiet(); if (quietOn.control.checked) start.control.focus(); });
  const quiet = el("fieldset", { class: "quiet-hours" }, el("legend", {}, "Quiet hours"), quietOn.node, quietFields);

  const fields = {
    email, push, delay_secs: delay, reminder_percent: reminder, quiet_hours: quietOn,
    "quiet_hours.start": start, "quiet_hours.end": end, "quiet_hours.time_zone": zone,
  };

  const fill = (values) => {
    const v = values ?? {};
    email.control.value = onOffValue(v.email);
    push.control.value = onOffValue(v.push);
    delay.control.value = v.delay_secs ?? "";
    reminder.control.value = v.reminder_percent ?? "";
    quietOn.control.checked = v.quiet_hours != null;
    start.control.value = v.quiet_hours?.start ?? "22:00";
    end.control.value = v.quiet_hours?.end ?? "07:00";
    fillZones(v.quiet_hours?.time_zone || localTimeZone());
    showQuiet();
    Object.values(fields).forEach((f) => f.setError(""));
  };

  /** The body to store, or null (with the messages placed) when a field needs fixing. */
  const read = () => {
    Object.values(fields).forEach((f) => f.setError(""));
    let ok = true;
    const whole = (f, [min, max], words, extra) => {
      const text = f.control.value.trim();
      if (text === "") return null;
      const n = Number(text);
      if (!Number.isInteger(n)) { f.setError("Must be a whole number."); ok = false; return null; }
      if (!(extra?.(n)) && (n < min || n > max)) { f.setError(words); ok = false; return null; }
      return n;
    };
    const body = {
      email: onOffChoice(email.control.value),
      push: onOffChoice(push.control.value),
      delay_secs: whole(delay, DELAY, `Must be between ${DELAY[0]} and ${DELAY[1]} seconds.`),
      reminder_percent: whole(reminder, REMINDER, `Must be 0 (no reminder) or between ${REMINDER[0]} and ${REMINDER[1]}.`, (n) => n === 0),
      quiet_hours: null,
    };
    if (quietOn.control.checked) {
      for (const f of [start, end]) {
        if (!HHMM.test(f.control.value)) { f.setError("Enter a time, e.g. 22:00."); ok = false; }
      }
      if (!zone.control.value) { zone.setError("Choose a time zone."); ok = false; }
      body.quiet_hours = { start: start.control.value, end: end.control.value, time_zone: zone.control.value };
    }
    return ok ? body : null;
  };

  // "own.quiet_hours.time_zone", "quiet_hours.end", "reminder_percent": to the field named.
  const place = (name, message) => {
    const key = String(name ?? "").replace(/^(own|defaults)\./, "");
    const f = fields[key] ?? (key.startsWith("quiet_hours") ? quietOn : null);
    if (!f) return false;
    f.setError([f.error.textContent, message].filter(Boolean).join("\n"));
    return true;
  };

  const submit = el("button", { type: "submit" }, submitLabel);
  const form = el("form", { class: "prefs", novalidate: true, "aria-labelledby": titleId },
    errors, email.node, push.node, delay.node, reminder.node, quiet, el("div", { class: "actions" }, submit), said);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    errors.show("");
    const body = read();
    if (!body) {
      errors.show("Some fields need fixing; see the messages next to them.");
      form.querySelector("[aria-invalid=true]")?.focus();
      return;
    }
    busy(submit, async () => {
      try {
        fill(await save(body));
        said.say("Saved.");
      } catch (error) {
        Object.values(fields).forEach((f) => f.setError(""));
        showProblem(error, place, errors);
        if (quietOn.control.checked === false && form.querySelector(".quiet-grid [aria-invalid=true]")) {
          quietOn.control.checked = true;
          showQuiet();
        }
        const first = form.querySelector("[aria-invalid=true]");
        if (first && errors.hidden) errors.show(`${error.message}: see the messages next to the fields.`);
        first?.focus();
      }
    });
  });
  return { node: form, fill };
}

/** "none", "at once", "45 seconds", "2 minutes": a delay for people. */
function delayWords(secs) {
  if (secs == null) return "—";
  if (secs === 0) return "at once";
  if (secs % 60 === 0) return secs === 60 ? "1 minute" : `${secs / 60} minutes`;
  if (secs > 60) return `${Math.floor(secs / 60)} min ${secs % 60} s`;
  return secs === 1 ? "1 second" : `${secs} seconds`;
}

const reminderWords = (percent) => (percent == null ? "—" : percent === 0 ? "none" : `at ${percent}%`);
const quietWords = (q) => (q ? `${q.start}–${q.end} (${q.time_zone.replaceAll("_", " ")})` : "none");
const emailWords = (on, available) => (!available ? "off (not set up)" : on ? "on" : "off");
// The default is on: a document without `push` (an older Herald) means on.
const pushWords = (on, available) => emailWords(on !== false, available);

function summaryCells(effective, emailAvailable, pushAvailable) {
  const e = effective ?? {};
  return [["E-mail", emailWords(e.email, emailAvailable)], ["Browser push", pushWords(e.push, pushAvailable)], ["Delay", delayWords(e.delay_secs)],
    ["Reminder", reminderWords(e.reminder_percent)], ["Quiet hours", quietWords(e.quiet_hours)]]
    .map(([label, text]) => el("td", { "data-label": label }, text));
}

function summaryText(effective, emailAvailable, pushAvailable) {
  const e = effective ?? {};
  return `e-mail ${emailWords(e.email, emailAvailable)}, browser push ${pushWords(e.push, pushAvailable)}, delay ${delayWords(e.delay_secs)}, reminder ${reminderWords(e.reminder_percent)}, quiet hours ${quietWords(e.quiet_hours)}`;
}
