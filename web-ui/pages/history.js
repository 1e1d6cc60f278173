// History: the signed-in person's resolved questions in the selected org —
// what ended them (action), who decided and why, which server and tool, when —
// with a client-side search over the loaded pages and "Load more".

import { api, el } from "../dom.js";
import { banner, busy, facts, field, heading, orgPath, time } from "../ui.js";
import { explain } from "../explain.js";

const PAGE = 50;

const OUTCOME = { accept: "Accepted", decline: "Declined", cancel: "Cancelled" };
/** Through which channel a person's answer came, in words. */
const VIA = { web: "the dashboard", email: "a link in a notification e-mail", push: "the dashboard, opened from a browser notification" };

const DECIDER = {
  user: "you", policy: "the organisation's policy", timeout: "the deadline", server: "the server",
  caller: "the agent that asked", system: "Herald",
};

export default async function render(root, { org, membership }) {
  const records = [];
  let next = null;
  const errors = banner();
  const search = el("input", { type: "search", autocomplete: "off", placeholder: "Message, server or tool" });
  const searchField = field("Search loaded questions", search);
  const count = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const list = el("ol", { class: "records" });
  const more = el("button", { type: "button", class: "quiet" }, "Load more");

  const matches = (r, q) => [r.message, r.server?.name, r.server?.slug, r.tool, r.url]
    .some((text) => text && text.toLowerCase().includes(q));
  const draw = () => {
    const q = search.value.trim().toLowerCase();
    const shown = q ? records.filter((r) => matches(r, q)) : records;
    list.replaceChildren(...shown.map((r) => item(r, org)));
    count.textContent = !records.length ? "No answered questions yet."
      : q ? `${shown.length} of ${records.length} loaded questions match.`
        : `${records.length} question${records.length === 1 ? "" : "s"} loaded${next ? "; more are available" : ""}.`;
    more.hidden = !next;
  };
  const load = () => busy(more, async () => {
    errors.show("");
    const query = new URLSearchParams({ status: "resolved", limit: String(PAGE) });
    if (next) query.set("before", next);
    try {
      const page = await api("GET", orgPath(org, `/elicitations?${query}`));
      records.push(...page.elicitations);
      next = page.next;
      draw();
    } catch (error) {
      errors.show(error.message);
    }
  });
  search.addEventListener("input", draw);
  more.addEventListener("click", load);

  root.append(el("section", { class: "card" },
    heading("History", `Questions servers asked you in ${membership.org.name}, and how each ended. Newest first.`),
    errors, searchField.node, count, list, el("div", { class: "actions" }, more)));
  await load();
}

/** A declined question can be asked again: Herald forgets the decline. */
function askAgain(r, org) {
  const remembered = r.action === "decline" && (r.decided_by === "user" || r.reason === "previously_declined");
  if (!remembered) return null;
  const say = el("span", { class: "muted", role: "status" });
  const button = el("button", { type: "button", class: "quiet" }, "Ask me again");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await api("POST", orgPath(org, `/elicitations/${encodeURIComponent(r.id)}/ask-again`));
      say.textContent = `${r.server?.name ?? "The server"} will be asked again next time.`;
    } catch (error) {
      say.textContent = error.message;
      button.disabled = false;
    }
  });
  return el("div", { class: "actions" }, button, say);
}

function item(r, org) {
  const outcome = OUTCOME[r.action] ?? r.action ?? "—";
  const why = r.decided_by === "policy" ? explain(r) : null;
  const content = r.content && typeof r.content === "object" && Object.keys(r.content).length
    ? facts(Object.entries(r.content).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]), "facts answer")
    : null;
  return el("li", { class: "record" },
    el("div", { class: "record-head" },
      el("span", { class: `badge ${r.action ?? ""}` }, outcome),
      el("strong", {}, r.server?.name ?? "?"),
      r.tool ? el("span", { class: "muted mono" }, r.tool) : null,
      el("span", { class: "muted" }, time(r.resolved_at ?? r.created_at))),
    el("p", { class: "message" }, r.mode === "url" ? `Open ${r.url}` : r.message),
    why ? el("p", { class: "explanation" }, el("strong", {}, `${why.title}. `), why.text) : null,
    facts([
      ["Decided by", DECIDER[r.decided_by] ?? r.decided_by],
      ["Answered through", r.answered_via ? (VIA[r.answered_via] ?? r.answered_via) : null],
      ["Why", r.reason?.replaceAll("_", " ")],
      ["Server", `${r.server?.name ?? "?"} (${r.server?.slug ?? "?"})`],
      ["Asked", time(r.created_at)],
    ]),
    content ? el("details", {}, el("summary", {}, "Your answer"), content) : null,
    askAgain(r, org));
}
