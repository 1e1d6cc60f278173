// Mutes: servers the signed-in person muted in the selected org (their
// questions are declined without being shown). Unmute, or mute another server.

import { api, el } from "../dom.js";
import { banner, busy, facts, field, heading, orgPath, showProblem, status, time } from "../ui.js";

export default async function render(root, { org, membership }) {
  const said = status();
  const listErrors = banner();
  const list = el("ul", { class: "rows", tabindex: "-1", "aria-label": "Muted servers" });
  const server = field("Server", el("select", { required: true }));
  const note = field("Note (optional)", el("input", { type: "text", maxlength: 500, autocomplete: "off" }),
    { help: "A reminder for yourself of why, up to 500 characters." });
  const formErrors = banner();
  const submit = el("button", { type: "submit" }, "Mute");

  const refresh = async () => {
    try {
      const [{ mutes }, { servers }] = await Promise.all([api("GET", orgPath(org, "/mutes")), api("GET", orgPath(org, "/servers"))]);
      list.replaceChildren(...(mutes.length ? mutes.map(row) : [el("li", { class: "muted" }, "You have not muted any server.")]));
      const muted = new Set(mutes.map((m) => m.server.slug));
      const open = servers.filter((s) => !muted.has(s.slug));
      server.control.replaceChildren(...(open.length
        ? open.map((s) => el("option", { value: s.slug }, `${s.name} (${s.slug})`))
        : [el("option", { value: "" }, "Every server is muted")]));
      submit.disabled = !open.length;
      listErrors.show("");
    } catch (error) {
      listErrors.show(error.message);
    }
  };

  const row = (m) => {
    const unmute = el("button", { type: "button", class: "quiet", "aria-label": `Unmute ${m.server.name}` }, "Unmute");
    unmute.addEventListener("click", () => busy(unmute, async () => {
      try {
        await api("DELETE", orgPath(org, `/mutes/${encodeURIComponent(m.server.slug)}`));
        said.say(`${m.server.name} unmuted: its questions reach you again.`);
        await refresh();
        server.control.focus();
      } catch (error) {
        listErrors.show(error.message);
      }
    }));
    return el("li", { class: "row" },
      el("div", { class: "row-main" }, el("strong", {}, m.server.name), " ", el("span", { class: "muted" }, `(${m.server.slug})`),
        facts([["Muted", time(m.created_at)],
          ["By", m.reason === "pestering" ? "Herald, after repeated re-asks of a question you declined" : "you"],
          ["Note", m.note]])),
      unmute);
  };

  const form = el("form", { class: "card", novalidate: true }, el("h2", {}, "Mute a server"),
    el("p", { class: "muted" }, "Its questions to you are declined on your behalf without being shown. Others in the organisation are not affected."),
    formErrors, server.node, note.node, el("div", { class: "actions" }, submit));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    server.setError(""); note.setError(""); formErrors.show("");
    if (!server.control.value) return;
    const body = { server: server.control.value };
    if (note.control.value.trim()) body.note = note.control.value.trim();
    busy(submit, async () => {
      try {
        await api("POST", orgPath(org, "/mutes"), body);
        said.say("Server muted.");
        form.reset();
        await refresh();
      } catch (error) {
        showProblem(error, (f, m) => ({ server, note }[f] ? ({ server, note }[f].setError(m), true) : false), formErrors);
      }
    }).then(() => { submit.disabled = !server.control.value; });
  });

  root.append(el("section", { class: "card" }, heading("Mutes", `Servers you muted in ${membership.org.name}.`), said, listErrors, list), form);
  await refresh();
}
