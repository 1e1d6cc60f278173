// Admin → Pending: what the org's members are being asked right now, per
// server (how many questions, how many people, how long the oldest has
// waited), refreshed every few seconds while the page is visible. The
// questions themselves stay private to the people asked.

import { api, el } from "../dom.js";
import { banner, heading, orgPath, time } from "../ui.js";

const REFRESH_MS = 3000;

// The previous draw's refresh loop (the page redraws when the org changes).
let stopRefresh = null;

export default async function render(root, { org, membership }) {
  stopRefresh?.();
  const errors = banner();
  const total = el("p", { class: "big-number", role: "status", "aria-live": "polite" });
  const updated = el("p", { class: "muted small" });
  const body = el("div", {});
  root.append(el("section", { class: "card" },
    heading("Pending questions", `What ${membership.org.name}'s servers are asking its members right now. The questions themselves are private to the people asked.`),
    errors, total, body, updated));

  const draw = (summary) => {
    total.textContent = summary.total === 0 ? "Nothing is pending."
      : `${summary.total} question${summary.total === 1 ? "" : "s"} pending`;
    if (!summary.servers.length) { body.replaceChildren(); return; }
    body.replaceChildren(el("div", { class: "table-wrap" }, el("table", { class: "table" },
      el("caption", { class: "sr-only" }, "Pending questions by server"),
      el("thead", {}, el("tr", {}, ["Server", "Questions", "People", "Oldest asked", "Waiting"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, summary.servers.map((s) => el("tr", {},
        el("th", { scope: "row" }, s.server_name, " ", el("span", { class: "muted" }, `(${s.server})`)),
        el("td", {}, String(s.count)),
        el("td", {}, String(s.people)),
        el("td", {}, time(s.oldest)),
        el("td", {}, waited(s.oldest))))))));
  };

  let timer = null;
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    if (!document.hidden) {
      try {
        draw(await api("GET", orgPath(org, "/elicitations/pending")));
        errors.show("");
        updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${REFRESH_MS / 1000} seconds.`;
      } catch (error) {
        errors.show(error.message);
      }
    }
    timer = setTimeout(tick, REFRESH_MS);
  };
  stopRefresh = () => { stopped = true; clearTimeout(timer); };
  await tick();
}

function waited(since) {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(since)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
