// Try a tool: pick one of the org's servers and one of its tools, fill in the
// arguments (the same controls the inbox uses when the tool's input schema is
// a flat form, JSON otherwise), and call it as yourself. Whatever the server
// asks on the way arrives in the inbox drawn below, and the result is shown
// here once the tool returns. Everything the server wrote is text.

import { api, el } from "../dom.js";
import { renderField, startInbox } from "../inbox.js";
import { banner, busy, field, heading, orgPath, uid } from "../ui.js";

// The previous draw's inbox socket (the page redraws when the org changes).
let stopInbox = null;

export default async function render(root, { org, membership }) {
  stopInbox?.();
  const errors = banner();
  const serverSelect = el("select", { required: true });
  const toolSelect = el("select", { required: true, disabled: true });
  const server = field("Server", serverSelect);
  const tool = field("Tool", toolSelect, { help: "Pick a server first." });
  // The tool list's help says what it waits for, and only while that is so.
  const toolHelp = tool.node.querySelector(".help");
  const sayAboutTools = (text) => { toolHelp.textContent = text; toolHelp.hidden = !text; };
  const about = el("div", { class: "tool-about" });
  const argsBox = el("div", { class: "tool-args" });
  const callButton = el("button", { type: "submit", disabled: true }, "Call the tool");
  const stopButton = el("button", { type: "button", class: "quiet", hidden: true }, "Stop waiting");
  const waiting = el("p", { class: "muted", role: "status", "aria-live": "polite" });
  const result = el("section", { class: "card result", "aria-labelledby": "result-title", hidden: true, tabindex: "-1" });
  const inboxRoot = el("section", { class: "console-inbox" });

  let tools = [];
  let readArgs = () => ({});

  const { servers } = await api("GET", orgPath(org, "/servers"));
  const usable = servers.filter((s) => !s.cut_off);
  serverSelect.append(el("option", { value: "" }, usable.length ? "Choose a server…" : "No servers available"),
    ...usable.map((s) => el("option", { value: s.slug }, `${s.name} (${s.slug})`)));

  // Which server's tools are wanted now: an answer for an earlier pick is dropped.
  let picked = 0;
  serverSelect.addEventListener("change", async () => {
    const pick = ++picked;
    tools = [];
    toolSelect.replaceChildren();
    toolSelect.disabled = true;
    callButton.disabled = true;
    about.replaceChildren();
    argsBox.replaceChildren();
    errors.show("");
    waiting.textContent = "";
    tool.setError("");
    const chosen = usable.find((s) => s.slug === serverSelect.value);
    if (!chosen) return sayAboutTools("Pick a server first.");
    sayAboutTools(`Loading the tools of ${chosen.name}…`);
    toolSelect.append(el("option", { value: "" }, "Loading tools…"));
    try {
      const answer = await api("GET", orgPath(org, `/servers/${encodeURIComponent(chosen.slug)}/tools`));
      if (pick !== picked) return;
      ({ tools } = answer);
      toolSelect.replaceChildren(el("option", { value: "" }, tools.length ? "Choose a tool…" : "This server has no tools"),
        ...tools.map(({ tool: t }) => el("option", { value: t.name }, t.title ? `${t.title} (${t.name})` : t.name)));
      toolSelect.disabled = tools.length === 0;
      sayAboutTools(tools.length ? "" : `${chosen.name} offers no tools.`);
    } catch (error) {
      if (pick !== picked) return;
      toolSelect.replaceChildren(el("option", { value: "" }, "Tools unavailable"));
      sayAboutTools(`Could not list the tools of ${chosen.name}.`);
      errors.show(error.message);
    }
  });

  toolSelect.addEventListener("change", () => {
    const chosen = tools.find(({ tool: t }) => t.name === toolSelect.value);
    errors.show("");
    waiting.textContent = "";
    about.replaceChildren();
    argsBox.replaceChildren();
    callButton.disabled = !chosen;
    if (!chosen) return;
    const { tool: t, form } = chosen;
    if (t.description) about.append(el("p", { class: "message" }, t.description));
    readArgs = form ? formArguments(argsBox, form) : jsonArguments(argsBox, t.inputSchema);
  });

  let controller = null;
  stopButton.addEventListener("click", () => controller?.abort());

  const callForm = el("form", { class: "card", novalidate: true }, heading("Try a tool",
    `Call a tool of one of ${membership.org.name}'s servers as yourself, without an agent. If the server asks you something, the question appears in your inbox below: answer it there, and the result shows up here.`),
  errors, server.node, tool.node, about, argsBox,
  el("div", { class: "actions" }, callButton, stopButton), waiting);

  callForm.addEventListener("submit", (event) => {
    event.preventDefault();
    errors.show("");
    const args = readArgs();
    if (args === undefined) return; // a field's own error is shown
    const slug = serverSelect.value;
    const name = toolSelect.value;
    controller = new AbortController();
    stopButton.hidden = false;
    waiting.textContent = `Calling ${name}… If the server asks you something, answer it in the inbox below.`;
    busy([callButton, serverSelect, toolSelect], async () => {
      try {
        const since = await newestQuestion(org);
        const outcome = await api("POST", orgPath(org, `/servers/${encodeURIComponent(slug)}/tools/call`),
          { name, arguments: args }, { signal: controller.signal });
        const asked = await questionsSince(org, since, slug, name);
        showResult(result, name, outcome.result, asked);
        waiting.textContent = `${name} returned.`;
      } catch (error) {
        if (error.name === "AbortError") {
          waiting.textContent = "Stopped waiting; the call was ended and its questions withdrawn.";
        } else {
          waiting.textContent = "";
          errors.show(error.message);
        }
      } finally {
        stopButton.hidden = true;
        controller = null;
      }
    });
  });

  root.append(callForm, result, inboxRoot);
  stopInbox = startInbox(inboxRoot, { title: "Your inbox", level: "h2" });
}

/** The inbox's controls for a flat input schema; the reader returns undefined when a field is invalid. */
function formArguments(box, form) {
  const fieldErrors = {};
  const qid = uid("arg");
  const controls = form.fields.map((f) => renderField(qid, f, fieldErrors));
  box.append(el("h2", { class: "sub" }, "Arguments"),
    ...(controls.length ? controls.map((c) => c.node) : [el("p", { class: "muted" }, "This tool takes no arguments.")]));
  return () => {
    const invalid = controls.map((c) => c.check()).filter(Boolean);
    if (invalid.length) { invalid[0].focus(); return undefined; }
    const args = {};
    for (const c of controls) {
      const value = c.value();
      if (value !== undefined) args[c.name] = value;
    }
    return args;
  };
}

/** A JSON editor for schemas richer than a flat form, pre-filled with the top-level properties. */
function jsonArguments(box, schema) {
  const skeleton = {};
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    skeleton[name] = prop?.default ?? placeholder(prop);
  }
  const area = el("textarea", { rows: 8, spellcheck: "false", class: "mono" });
  area.value = JSON.stringify(skeleton, null, 2);
  const input = field("Arguments (JSON)", area, { help: "This tool's input schema is richer than a simple form, so its arguments are written as a JSON object. Its schema is shown below." });
  const schemaView = el("details", {}, el("summary", {}, "Input schema"), el("pre", { class: "schema" }, JSON.stringify(schema ?? {}, null, 2)));
  box.append(el("h2", { class: "sub" }, "Arguments"), input.node, schemaView);
  return () => {
    input.setError("");
    let value;
    try { value = JSON.parse(area.value || "{}"); } catch (e) {
      input.setError(`Not valid JSON: ${e.message}`);
      area.focus();
      return undefined;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      input.setError("The arguments must be a JSON object, like {\"name\": \"value\"}.");
      area.focus();
      return undefined;
    }
    return value;
  };
}

function placeholder(prop) {
  const type = Array.isArray(prop?.type) ? prop.type[0] : prop?.type;
  return { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} }[type] ?? null;
}

/** The id of the caller's newest question in `org` (null when none): the questions after it are new. */
async function newestQuestion(org) {
  try {
    return (await api("GET", orgPath(org, "/elicitations?limit=1"))).elicitations[0]?.id ?? null;
  } catch {
    return null;
  }
}

/** The caller's questions asked by `tool` of server `slug` after the question `since`, oldest first. */
async function questionsSince(org, since, slug, tool) {
  try {
    const { elicitations } = await api("GET", orgPath(org, "/elicitations?limit=50"));
    const at = since ? elicitations.findIndex((q) => q.id === since) : -1;
    const newer = at >= 0 ? elicitations.slice(0, at) : elicitations;
    return newer.filter((q) => q.server?.slug === slug && q.tool === tool).reverse();
  } catch {
    return [];
  }
}

/**
 * What became of the call's questions, when one was not answered: a sentence and a badge.
 * Null when every question was answered (or none was asked).
 */
function unanswered(asked) {
  const ended = asked.filter((q) => q.status === "resolved" && q.action !== "accept");
  const last = ended.at(-1);
  if (!last) return null;
  const whose = `${last.server.name}'s question`;
  if (last.decided_by === "user") {
    return last.action === "decline"
      ? { badge: "Declined", text: `You declined ${whose}.` }
      : { badge: "Dismissed", text: `You dismissed ${whose} without answering.` };
  }
  if (last.decided_by === "policy") {
    return { badge: "Declined by policy", text: `Herald's policy answered ${whose} for you (${last.reason ?? last.action}).` };
  }
  if (last.decided_by === "timeout") return { badge: "Expired", text: `Nobody answered ${whose} in time.` };
  if (last.decided_by === "server") return { badge: "Withdrawn", text: `The server withdrew its question.` };
  return { badge: "Not answered", text: `${whose[0].toUpperCase()}${whose.slice(1)} ended without an answer (${last.reason ?? last.action}).` };
}

/**
 * The CallToolResult as text: each content item, then the structured content (when there is
 * some). The badge says how it went: a tool error, a question that was not answered (neutral:
 * the tool's own words follow), or OK.
 */
function showResult(section, name, result, asked = []) {
  const items = (result?.content ?? []).map((item) => {
    if (item?.type === "text") return el("pre", { class: "result-text" }, String(item.text ?? ""));
    return el("div", {}, el("p", { class: "muted" }, `${item?.type ?? "unknown"} content`),
      el("pre", { class: "result-text" }, JSON.stringify(item, null, 2)));
  });
  const failed = result?.isError === true;
  const ended = unanswered(asked);
  const [badgeClass, badgeText] = failed ? ["badge cancel", "Tool error"]
    : ended ? ["badge neutral", ended.badge] : ["badge accept", "OK"];
  const structured = result?.structuredContent;
  section.classList.toggle("failed", failed);
  // replaceChildren() would write a null as the text "null": the parts left out are filtered first.
  section.replaceChildren(...[
    el("h2", { id: "result-title" }, `Result of ${name}`, " ", el("span", { class: badgeClass }, badgeText)),
    ended ? el("p", { class: "outcome" }, ended.text, items.length ? ` ${name} answered:` : "") : null,
    failed ? el("p", { class: "outcome error" }, `${name} reported an error.`) : null,
    ...(items.length ? items : [el("p", { class: "muted" }, "The tool returned no content.")]),
    structured != null
      ? el("details", { open: true }, el("summary", {}, "Structured content"),
        el("pre", { class: "result-text" }, JSON.stringify(structured, null, 2)))
      : null,
  ].filter(Boolean));
  section.hidden = false;
  section.focus();
}
