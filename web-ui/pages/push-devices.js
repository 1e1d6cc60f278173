// The Notifications page's browser push: "This device" (a switch that turns
// push notifications on or off for this browser, its state read from the
// browser: the permission, the push subscription, and whether Herald knows
// that subscription) and "Devices" (every browser the person turned on, each
// with Send a test and Remove). Names, hosts and errors are shown as text.

import { api, el } from "../dom.js";
import {
  SUBSCRIBE_TIMEOUT_MS, currentSubscription, deviceName, madeWith, pushSupported, sha256Hex, subscribe,
} from "../push.js";
import { banner, busy, confirmButton, facts, field, status, time, uid } from "../ui.js";

/** What to do when the browser blocks notifications for the site, in words for people. */
const BLOCKED = "Your browser blocks notifications from Herald. To allow them, open this site's settings "
  + "(the icon at the left of the address bar, or Settings › Privacy and security › Site settings), "
  + "set Notifications to Allow, reload this page and turn this on again.";

/** A sentence for what went wrong while subscribing (the browser's own words kept, as text). */
function subscribeProblem(error) {
  const said = error?.message ? ` (“${error.message}”)` : "";
  switch (error?.name) {
    case "TimeoutError":
      return `Your browser's push service did not answer within ${SUBSCRIBE_TIMEOUT_MS / 1000} seconds. `
        + "Push notifications need it; check this device's connection to the internet and try again.";
    case "AbortError":
      return `Your browser could not subscribe to its push service${said}. That happens when the push service `
        + "cannot be reached, and in private windows, which cannot receive push notifications. Try again later, or in a normal window.";
    case "NotAllowedError":
      return BLOCKED;
    case "NotSupportedError":
      return `This browser cannot receive push notifications${said}.`;
    default:
      return `Notifications could not be turned on in this browser${said}.`;
  }
}

/**
 * Draws both parts; `pushAvailable` is /me/notifications' `push_available`. Returns
 * { nodes, load }: `load()` reads Herald's device list and this browser's state.
 */
export function pushSection({ pushAvailable }) {
  // ---- This device ----
  const thisTitle = uid("this-device");
  const toggle = el("input", { type: "checkbox", role: "switch", disabled: true });
  const control = field("Notify me on this device", toggle, { help: "Checking this browser…" });
  const help = control.node.querySelector(".help");
  const said = status();

  // ---- Devices ----
  const listTitle = uid("devices");
  const listErrors = banner();
  const listSaid = status();
  const list = el("ul", { class: "rows devices", tabindex: "-1", "aria-labelledby": listTitle });

  let info = { available: false, public_key: "", devices: [] }; // GET /me/push
  let subscription = null; // this browser's push subscription, if any
  let mine = null; // the hash of its endpoint
  let loadFailed = false; // the list's banner says Herald's list could not be read

  const supported = pushSupported();
  const thisRow = () => (mine ? info.devices.find((d) => d.endpoint_hash === mine) ?? null : null);
  const permission = () => (supported ? Notification.permission : "denied");
  const isOn = () => permission() === "granted" && Boolean(subscription) && madeWith(subscription, info.public_key) && Boolean(thisRow());

  const say = (text) => { control.error.textContent = text ?? ""; };

  /** The switch and its help line, from what the browser and Herald say now. */
  const drawSwitch = () => {
    const on = isOn();
    toggle.checked = on;
    toggle.disabled = !supported || !pushAvailable || !info.available;
    help.textContent = !supported ? "This browser cannot receive push notifications."
      : !pushAvailable || !info.available ? "Browser push is not set up on this Herald; ask your operator."
        : on ? "On: Herald notifies this browser when a question waits for you and no dashboard of yours is in view."
          // Said in full once (next to the switch, announced) after a try; the help line stays short then.
          : permission() === "denied" ? (control.error.textContent === BLOCKED ? "Off: notifications are blocked for this site." : BLOCKED)
            : "Off. Turn it on to be notified in this browser, even with the dashboard closed. The browser asks you to allow it first.";
  };

  /**
   * Reads Herald's list and this browser's subscription, and draws both parts; `focusKey` names
   * a row's button (its data-key) to focus once redrawn.
   */
  const refresh = async (focusKey) => {
    try {
      info = await api("GET", "/me/push");
      if (loadFailed) listErrors.show(""); // only its own message: a test's outcome stays
      loadFailed = false;
    } catch (error) {
      listErrors.show(`Your devices could not be loaded: ${error.message}`);
      loadFailed = true;
      info = { available: false, public_key: "", devices: [] };
    }
    try {
      subscription = await currentSubscription();
      mine = subscription ? await sha256Hex(subscription.endpoint) : null;
    } catch {
      subscription = null;
      mine = null;
    }
    drawSwitch();
    drawList(focusKey);
  };

  const turnOn = async () => {
    let granted = permission();
    if (granted !== "granted") granted = await Notification.requestPermission();
    if (granted !== "granted") {
      return granted === "denied" ? BLOCKED
        : "Your browser did not allow notifications: its question was closed. Turn this on again to be asked again.";
    }
    const stale = subscription && !madeWith(subscription, info.public_key) ? thisRow() : null;
    let made;
    try {
      made = await subscribe(info.public_key);
    } catch (error) {
      return subscribeProblem(error);
    }
    try {
      const device = await api("POST", "/me/push/devices", { subscription: made.subscription.toJSON(), name: deviceName() });
      // The row of this browser's previous subscription (made with an older key) is gone with it.
      if (stale && stale.id !== device?.id) await api("DELETE", `/me/push/devices/${encodeURIComponent(stale.id)}`).catch(() => {});
      said.say("Notifications are on for this browser.");
      return null;
    } catch (error) {
      // Herald refused it (e.g. too many devices): the browser's new subscription is undone.
      if (made.created) await made.subscription.unsubscribe().catch(() => {});
      const details = (error.problem?.errors ?? []).map((e) => e.message).filter(Boolean);
      return `Herald could not add this browser: ${[error.message, ...details].join(" — ")}`;
    }
  };

  const turnOff = async () => {
    const row = thisRow();
    if (row) {
      try {
        await api("DELETE", `/me/push/devices/${encodeURIComponent(row.id)}`);
      } catch (error) {
        if (error.problem?.status !== 404) return `Notifications could not be turned off: ${error.message}`;
      }
    }
    await subscription?.unsubscribe().catch(() => {});
    said.say("Notifications are off for this browser.");
    return null;
  };

  // Each of turnOn and turnOff returns what went wrong, in a sentence, or null. The sentence is
  // said once the switch shows the state again, so both are announced together.
  toggle.addEventListener("change", () => {
    const wanted = toggle.checked;
    let problem = null;
    say("");
    busy(toggle, async () => {
      try {
        problem = await (wanted ? turnOn() : turnOff());
      } catch (error) {
        problem = `Something went wrong: ${error.message}`;
      }
      await refresh();
    }).then(() => {
      say(problem);
      drawSwitch(); // busy() re-enabled it: whether it may be used is the state's to say
      toggle.focus();
    });
  });

  /** One device: its name (and whether it is this browser), where it is reached, and what happened last. */
  const row = (d) => {
    const here = d.endpoint_hash === mine;
    const label = here ? `${d.name} (this browser)` : d.name;
    const test = el("button", { type: "button", class: "quiet", "aria-label": `Send a test to ${label}`, "data-key": `${d.id}:test` }, "Send a test");
    test.addEventListener("click", () => busy(test, async () => {
      let problem = "";
      let done = "";
      try {
        // { sent, error, removed } once the push service answered, or { queued } when sent later.
        const result = await api("POST", `/me/push/devices/${encodeURIComponent(d.id)}/test`);
        if (result?.sent === false) problem = `The test did not reach ${label}: ${result.error ?? "the push service did not take it"}.`;
        else done = result?.sent ? `Test sent to ${label}. It appears there in a moment if that browser is running.` : `A test notification is on its way to ${label}.`;
      } catch (error) {
        problem = `The test could not be sent: ${error.message}`;
      }
      // Redrawn first (when it was last sent, or that the device is gone), focus back on its button; then said.
      await refresh(`${d.id}:test`);
      if (problem) listErrors.show(problem);
      else if (!loadFailed) listErrors.show("");
      if (done) listSaid.say(done);
    }));
    const remove = confirmButton("Remove",
      `Really remove ${label}? Herald stops sending notifications to it at once.`, "Remove", async () => {
        try {
          await api("DELETE", `/me/push/devices/${encodeURIComponent(d.id)}`);
        } catch (error) {
          if (error.problem?.status !== 404) { listErrors.show(`${d.name} could not be removed: ${error.message}`); return false; }
        }
        // Removing this browser turns it off here too.
        if (here) await subscription?.unsubscribe().catch(() => {});
        listSaid.say(`${label} removed.`);
        await refresh();
        list.focus();
        return true;
      }, { accessibleName: `Remove ${label}` });
    return el("li", { class: "row", "data-device": d.id, "data-this-browser": here ? "true" : null },
      el("div", { class: "row-main" },
        el("strong", {}, d.name), here ? el("span", { class: "badge accept" }, "this browser") : null,
        facts([["Push service", d.push_service], ["Added", time(d.created_at)], ["Last sent", time(d.last_sent_at, "never")]]),
        d.last_error ? el("p", { class: "error small" }, `Last error: ${d.last_error}`) : null),
      el("div", { class: "row-controls" }, test, remove));
  };

  const drawList = (focusKey) => {
    list.replaceChildren(...(info.devices.length
      ? info.devices.map(row)
      : [el("li", { class: "muted" }, "No devices yet. Turn on “Notify me on this device” in each browser where you want to be notified.")]));
    if (focusKey) list.querySelector(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  };

  const thisCard = el("section", { class: "card this-device", "aria-labelledby": thisTitle },
    el("h2", { id: thisTitle }, "This device"),
    el("p", { class: "muted" }, "Herald can show a notification in this browser, like an e-mail but at once, even with the dashboard closed. Each browser is turned on by itself."),
    said, control.node);
  const listCard = el("section", { class: "card", "aria-labelledby": listTitle },
    el("h2", { id: listTitle }, "Devices"),
    el("p", { class: "muted" }, "Every browser where you turned notifications on. Remove one you no longer use."),
    listSaid, listErrors, list);

  return { nodes: [thisCard, listCard], load: refresh };
}
