// Tokens: the signed-in person's API tokens for agents in the selected org —
// list, create (the secret is shown exactly once, with Copy) and revoke.

import { api, el } from "../dom.js";
import { banner, busy, confirmButton, copyButton, facts, field, heading, orgPath, showProblem, status, time } from "../ui.js";

export default async function render(root, { org, membership }) {
  const said = status();
  const listErrors = banner();
  const list = el("ul", { class: "rows", tabindex: "-1", "aria-label": "Your tokens" });
  const secretSlot = el("div");

  const refresh = async () => {
    try {
      const { tokens } = await api("GET", orgPath(org, "/tokens"));
      list.replaceChildren(...(tokens.length ? tokens.map(row) : [el("li", { class: "muted" }, "No tokens yet.")]));
      listErrors.show("");
    } catch (error) {
      listErrors.show(error.message);
    }
  };

  const row = (t) => {
    const expired = t.expires_at && new Date(t.expires_at) < new Date();
    return el("li", { class: "row" },
      el("div", { class: "row-main" },
        el("strong", {}, t.name), " ", el("code", {}, `${t.prefix}…`),
        expired ? el("span", { class: "badge cancel" }, "Expired") : null,
        facts([["Created", time(t.created_at)], ["Last used", time(t.last_used_at, "never")],
          ["Expires", time(t.expires_at, "never")]])),
      confirmButton("Revoke", `Really revoke “${t.name}”? Agents using it stop working at once, and it cannot be brought back.`, "Revoke", async () => {
        try {
          await api("DELETE", orgPath(org, `/tokens/${t.id}`));
          said.say(`Token “${t.name}” revoked.`);
          await refresh();
          list.focus();
        } catch (error) {
          listErrors.show(error.message);
          return false;
        }
      }, { accessibleName: `Revoke ${t.name}` }));
  };

  // Create form
  const name = field("Name", el("input", { type: "text", maxlength: 100, autocomplete: "off", required: true }),
    { help: "What uses it, e.g. “Claude Code on my laptop”." });
  const days = field("Expires after (days, optional)", el("input", { type: "number", min: 1, max: 3650, step: 1, inputmode: "numeric" }),
    { help: "1 to 3650. Leave empty for a token that lasts until you revoke it." });
  const formErrors = banner();
  const submit = el("button", { type: "submit" }, "Create token");
  const fields = { name, expires_in_days: days };
  const form = el("form", { class: "card", novalidate: true }, el("h2", {}, "Create a token"), formErrors, name.node, days.node,
    el("div", { class: "actions" }, submit));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    Object.values(fields).forEach((f) => f.setError(""));
    formErrors.show("");
    const body = { name: name.control.value.trim() };
    if (!body.name) return name.setError("Give the token a name."), name.control.focus();
    if (days.control.value !== "") {
      const n = Number(days.control.value);
      if (!Number.isInteger(n) || n < 1 || n > 3650) return days.setError("Must be a whole number from 1 to 3650."), days.control.focus();
      body.expires_in_days = n;
    }
    busy(submit, async () => {
      try {
        const created = await api("POST", orgPath(org, "/tokens"), body);
        form.reset();
        showSecret(created);
        await refresh();
      } catch (error) {
        showProblem(error, (f, m) => (fields[f] ? (fields[f].setError(m), true) : false), formErrors);
        if (error.problem?.type?.endsWith("token-name-taken")) name.setError("You already have a token with this name.");
      }
    });
  });

  const showSecret = (created) => {
    const secret = el("code", { class: "secret" }, created.secret);
    const done = el("button", { type: "button", class: "quiet", onclick: () => { secretSlot.replaceChildren(); name.control.focus(); } }, "Done");
    const box = el("div", { class: "card once", role: "alert", tabindex: "-1" },
      el("h2", {}, `Token “${created.name}” created`),
      el("p", {}, el("strong", {}, "Copy it now: you will not see it again."), " Herald keeps only a hash of it."),
      el("div", { class: "copy-line" }, secret, copyButton(() => created.secret, { label: "Copy token", target: secret })),
      el("p", { class: "muted" }, "Use it as ", el("code", {}, "Authorization: Bearer …"), " in your agent's MCP configuration; see ",
        el("a", { href: "/connect" }, "Connect an agent"), "."),
      el("div", { class: "actions" }, done));
    secretSlot.replaceChildren(box);
    box.focus();
  };

  root.append(el("section", { class: "card" }, heading("API tokens", `Tokens let your agents call ${membership.org.name}'s servers as you. Each one is yours alone.`),
    said, listErrors, list), secretSlot, form);
  await refresh();
}
