// Admin → Members: the selected org's members (change roles, remove), its
// pending invites (revoke), and inviting someone (the one-time link is shown
// once, with Copy).

import { api, el } from "../dom.js";
import { banner, busy, confirmButton, copyButton, field, heading, orgPath, showProblem, status, time } from "../ui.js";

const ROLES = ["owner", "admin", "member"];

export default async function render(root, { org, role, account, membership }) {
  const owner = role === "owner";
  const said = status();
  const listErrors = banner();
  const members = el("ul", { class: "rows", tabindex: "-1", "aria-label": "Members" });
  const invites = el("ul", { class: "rows", tabindex: "-1", "aria-label": "Pending invites" });
  const linkSlot = el("div");

  const refresh = async () => {
    try {
      const [m, i] = await Promise.all([api("GET", orgPath(org, "/members")), api("GET", orgPath(org, "/invites"))]);
      members.replaceChildren(...m.members.map(memberRow));
      invites.replaceChildren(...(i.invites.length ? i.invites.map(inviteRow) : [el("li", { class: "muted" }, "No pending invites.")]));
      listErrors.show("");
    } catch (error) {
      listErrors.show(error.message);
    }
  };

  const memberRow = (m) => {
    const self = m.user.id === account.user.id;
    // Admins may move people between member and admin only; owners may do anything.
    const locked = !owner && m.role === "owner";
    const select = el("select", { disabled: locked }, ROLES.map((r) =>
      el("option", { value: r, selected: r === m.role, disabled: !owner && r === "owner" }, r)));
    const roleField = field(`Role of ${m.user.name}`, select, { className: "field compact" });
    roleField.node.querySelector("label").classList.add("sr-only");
    select.addEventListener("change", () => busy(select, async () => {
      roleField.setError("");
      try {
        const updated = await api("PATCH", orgPath(org, `/members/${m.user.id}`), { role: select.value });
        m.role = updated.role;
        said.say(`${m.user.name} is now ${updated.role}.`);
        // One's own role decides which pages are open: redraw the nav and this page.
        if (self) dispatchEvent(new CustomEvent("herald:account-changed"));
      } catch (error) {
        select.value = m.role;
        roleField.setError(error.message);
      }
    }).then(() => { select.disabled = locked; }));
    const remove = locked ? null : confirmButton(self ? "Leave" : "Remove",
      self ? `Really leave ${membership.org.name}? You lose access at once, and your API tokens here are deleted.`
        : `Really remove ${m.user.name} from ${membership.org.name}? They lose access at once, and their API tokens here are deleted.`,
      self ? "Leave" : "Remove", async () => {
        try {
          await api("DELETE", orgPath(org, `/members/${m.user.id}`));
          if (self) return location.assign("/");
          said.say(`${m.user.name} removed.`);
          await refresh();
          members.focus();
        } catch (error) {
          roleField.setError(error.message);
          return false;
        }
      }, { accessibleName: `${self ? "Leave" : "Remove"} ${m.user.name}`, keepLabel: self ? "Stay" : "Keep" });
    return el("li", { class: "row" },
      el("div", { class: "row-main" }, el("strong", {}, m.user.name), self ? el("span", { class: "muted" }, " (you)") : null,
        el("div", { class: "muted" }, m.user.email), el("div", { class: "muted small" }, "Joined ", time(m.joined_at))),
      el("div", { class: "row-controls" }, roleField.node, remove));
  };

  const inviteRow = (i) => el("li", { class: "row" },
    el("div", { class: "row-main" }, el("strong", {}, i.email), " ", el("span", { class: "badge" }, i.role),
      el("div", { class: "muted small" }, "Sent ", time(i.created_at), " · expires ", time(i.expires_at))),
    confirmButton("Revoke", `Really revoke the invite for ${i.email}? Its link stops working at once.`, "Revoke", async () => {
      try {
        await api("DELETE", orgPath(org, `/invites/${i.id}`));
        said.say(`Invite for ${i.email} revoked.`);
        await refresh();
        invites.focus();
      } catch (error) {
        listErrors.show(error.message);
        return false;
      }
    }, { accessibleName: `Revoke the invite for ${i.email}` }));

  // Invite form
  const email = field("Email", el("input", { type: "email", autocomplete: "off", required: true }));
  const roleSelect = field("Role", el("select", {}, ROLES.filter((r) => owner || r !== "owner")
    .map((r) => el("option", { value: r, selected: r === "member" }, r))));
  const formErrors = banner();
  const submit = el("button", { type: "submit" }, "Create invite link");
  const form = el("form", { class: "card", novalidate: true }, el("h2", {}, "Invite someone"),
    el("p", { class: "muted" }, "Herald sends no email: you get a one-time link, valid for 7 days, to pass on yourself."),
    formErrors, email.node, roleSelect.node, el("div", { class: "actions" }, submit));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    email.setError(""); roleSelect.setError(""); formErrors.show("");
    if (!email.control.value.trim()) return email.setError("Enter an email address."), email.control.focus();
    busy(submit, async () => {
      try {
        const invite = await api("POST", orgPath(org, "/invites"), { email: email.control.value.trim(), role: roleSelect.control.value });
        form.reset();
        showLink(invite);
        await refresh();
      } catch (error) {
        showProblem(error, (f, m) => ({ email, role: roleSelect }[f] ? ({ email, role: roleSelect }[f].setError(m), true) : false), formErrors);
        if (error.problem?.type?.endsWith("already-member")) email.setError("This person is already a member.");
      }
    });
  });

  const showLink = (invite) => {
    const link = el("code", { class: "secret" }, invite.link);
    const box = el("div", { class: "card once", role: "alert", tabindex: "-1" },
      el("h2", {}, `Invite link for ${invite.email}`),
      el("p", {}, el("strong", {}, "Copy it now: it is shown only once."), ` It makes its holder a ${invite.role} of ${membership.org.name} and works once, until `, time(invite.expires_at), "."),
      el("div", { class: "copy-line" }, link, copyButton(() => invite.link, { label: "Copy link", target: link })),
      el("div", { class: "actions" }, el("button", { type: "button", class: "quiet", onclick: () => { linkSlot.replaceChildren(); email.control.focus(); } }, "Done")));
    linkSlot.replaceChildren(box);
    box.focus();
  };

  root.append(
    el("section", { class: "card" }, heading("Members", `People in ${membership.org.name} and what they may do.`), said, listErrors, members),
    el("section", { class: "card" }, el("h2", {}, "Pending invites"), invites),
    linkSlot, form, await signInCard(org, membership));
  await refresh();
}

/** How the org's members sign in: its identity provider, and whether passwords are allowed. */
async function signInCard(org, membership) {
  const said = status();
  const errors = banner();
  const card = el("section", { class: "card", "aria-labelledby": "sign-in-heading" });
  let settings;
  try {
    settings = await api("GET", orgPath(org, "/sign-in"));
  } catch (error) {
    card.append(el("h2", { id: "sign-in-heading" }, "Sign-in"), el("p", { class: "error" }, error.message));
    return card;
  }
  const draw = () => {
    const providers = settings.providers.length
      ? el("ul", { class: "rows" }, settings.providers.map((p) => el("li", { class: "row" },
        el("div", { class: "row-main" }, el("strong", {}, p.name), el("div", { class: "muted small" }, p.issuer),
          el("div", { class: "muted small" }, p.you_signed_in_with_it ? "You have signed in with it." : "You have not signed in with it yet.")))))
      : el("p", { class: "muted" }, "No identity provider is set up for this organisation: members sign in with a password.");
    const toggle = el("input", { type: "checkbox", id: "password-sign-in", checked: settings.password_sign_in });
    const help = settings.password_sign_in
      ? "Members may also sign in with a password. Turn this off to have everyone sign in through the identity provider."
      : "Members sign in through the identity provider only; a password sign-in is refused with a pointer to its button.";
    toggle.addEventListener("change", () => busy(toggle, async () => {
      errors.show("");
      try {
        settings = await api("PUT", orgPath(org, "/sign-in"), { password_sign_in: toggle.checked });
        said.say(settings.password_sign_in ? "Password sign-in is allowed again." : "Password sign-in is off: members sign in through the identity provider.");
        draw();
        // The card was drawn anew: keep the keyboard where it was.
        card.querySelector("#password-sign-in")?.focus();
      } catch (error) {
        toggle.checked = settings.password_sign_in;
        errors.show(error.message);
      }
    }));
    card.replaceChildren(el("h2", { id: "sign-in-heading" }, "Sign-in"),
      el("p", { class: "muted" }, `How people sign in to ${membership.org.name}.`), said, errors, providers,
      el("div", { class: "switch-row" }, toggle, el("label", { for: "password-sign-in" }, "Allow password sign-in")),
      el("p", { class: "help" }, help));
  };
  draw();
  return card;
}
