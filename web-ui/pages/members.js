// Admin → Members: the selected org's members (change roles, remove), its
// pending invites (revoke), and inviting someone (the one-time link is shown
// once, with Copy).

import { api, el } from "../dom.js";
import { banner, busy, confirmButton, copyButton, facts, field, heading, orgPath, showProblem, status, time } from "../ui.js";

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
    linkSlot, form, await signInCard(org, membership, role));
  await refresh();
}

/**
 * How the org's members sign in: its identity providers, whether passwords are allowed, and
 * (where the operator lets organisations have one) its own provider and e-mail domains.
 */
async function signInCard(org, membership, role) {
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
    const reload = async (message) => {
      settings = await api("GET", orgPath(org, "/sign-in"));
      draw();
      if (message) said.say(message);
    };
    card.replaceChildren(el("h2", { id: "sign-in-heading" }, "Sign-in"),
      el("p", { class: "muted" }, `How people sign in to ${membership.org.name}.`), said, errors, providers,
      el("div", { class: "switch-row" }, toggle, el("label", { for: "password-sign-in" }, "Allow password sign-in")),
      el("p", { class: "help" }, help),
      ...(settings.own_provider_allowed
        ? [ownProviderSection(org, membership, role, settings, reload), domainsSection(org, membership, role, settings, reload)]
        : []));
  };
  draw();
  return card;
}

/** The organisation's own identity provider: a form for owners, the facts for everyone else. */
function ownProviderSection(org, membership, role, settings, reload) {
  const own = settings.own_provider;
  const section = el("section", { class: "subsection", "aria-labelledby": "own-provider-heading" },
    el("h3", { id: "own-provider-heading", tabindex: "-1" }, "Your organisation's identity provider"));
  const redirect = el("code", { class: "url-line" }, settings.redirect_uri);
  const redirectLine = el("div", { class: "copy-line" }, el("span", { class: "muted" }, "Redirect URI to register at the provider: "), redirect,
    copyButton(() => settings.redirect_uri, { label: "Copy", target: redirect, accessibleName: "Copy the redirect URI" }));
  if (role !== "owner") {
    section.append(own
      ? facts([["Name", own.name], ["Issuer", own.issuer], ["Client ID", own.client_id], ["People who join become", own.default_role],
        ["Groups claim", own.groups_claim], ["Groups to roles", own.role_map.map((m) => `${m.group} → ${m.role}`).join(", ") || null]])
      : el("p", { class: "muted" }, "None set up. An owner of the organisation can set one up here."));
    return section;
  }
  const errors = banner();
  const input = (name, value, attrs = {}) => el("input", { name, value: value ?? "", autocomplete: "off", ...attrs });
  const issuer = field("Issuer URL", input("issuer", own?.issuer, { type: "url", placeholder: "https://login.example.com", required: true }),
    { help: "The provider's OpenID Connect issuer; Herald reads its discovery document before saving." });
  const clientId = field("Client ID", input("client_id", own?.client_id, { required: true }));
  const secret = field("Client secret", input("client_secret", "", { type: "password", autocomplete: "new-password" }),
    { help: own?.client_secret_set ? "A secret is stored (never shown). Leave empty to keep it." : "Sealed when saved; never shown again." });
  const name = field("Name on the sign-in button", input("name", own?.name ?? "", { required: true, maxlength: 60 }));
  const roleSelect = field("People who join become", el("select", { name: "default_role" },
    ["member", "admin"].map((r) => el("option", { value: r, selected: (own?.default_role ?? "member") === r }, r))));
  const groups = field("Groups claim (optional)", input("groups_claim", own?.groups_claim),
    { help: "The ID token claim that lists a person's groups, such as groups. With the mapping below, the provider decides roles at every sign-in." });
  const mapList = el("ul", { class: "role-map", "aria-label": "Groups to roles" });
  const mapError = el("p", { class: "error", "aria-live": "polite" });
  const addMapping = (group = "", mapped = "member") => {
    const groupInput = el("input", { value: group, "aria-label": "Group name", autocomplete: "off" });
    const roleInput = el("select", { "aria-label": `Role for this group` },
      ["member", "admin"].map((r) => el("option", { value: r, selected: r === mapped }, r)));
    const row = el("li", { class: "role-map-row" }, groupInput, el("span", { "aria-hidden": "true" }, "→"), roleInput,
      el("button", { type: "button", class: "quiet", onclick: () => { row.remove(); addButton.focus(); } }, "Remove mapping"));
    mapList.append(row);
    return groupInput;
  };
  const addButton = el("button", { type: "button", class: "quiet", onclick: () => addMapping().focus() }, "Add a group mapping");
  for (const m of own?.role_map ?? []) addMapping(m.group, m.role);
  const save = el("button", { type: "submit" }, own ? "Save changes" : "Set up the provider");
  const fields = { issuer, client_id: clientId, client_secret: secret, name, default_role: roleSelect, groups_claim: groups };
  const form = el("form", { class: "stack", novalidate: true, "aria-labelledby": "own-provider-heading" },
    errors, issuer.node, clientId.node, secret.node, name.node, roleSelect.node, groups.node,
    el("div", { class: "field" }, el("span", { class: "label" }, "Groups to roles (optional)"), mapList, addButton, mapError),
    redirectLine, el("div", { class: "actions" }, save));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(save, async () => {
      Object.values(fields).forEach((f) => f.setError(""));
      mapError.textContent = "";
      const body = {
        issuer: issuer.control.value.trim(),
        client_id: clientId.control.value.trim(),
        name: name.control.value.trim(),
        default_role: roleSelect.control.value,
        groups_claim: groups.control.value.trim() || null,
        role_map: [...mapList.children].map((row) => ({ group: row.querySelector("input").value.trim(), role: row.querySelector("select").value }))
          .filter((m) => m.group),
      };
      if (secret.control.value) body.client_secret = secret.control.value;
      try {
        await api("PUT", orgPath(org, "/sign-in/provider"), body);
        await reload(own ? "The identity provider is saved." : `The identity provider is set up. People of the confirmed domains can now sign in with ${body.name}.`);
        document.getElementById("own-provider-heading")?.focus?.();
      } catch (error) {
        showProblem(error, (f, m) => {
          if (f === "role_map") { mapError.textContent = m; return true; }
          if (!fields[f]) return false;
          fields[f].setError(m);
          return true;
        }, errors);
        const first = form.querySelector("[aria-invalid=true]");
        if (first) first.focus();
      }
    });
  });
  section.append(form);
  if (own) {
    section.append(el("div", { class: "actions" }, confirmButton("Remove the provider",
      `Remove ${own.name}? People who signed in through it must sign in another way, and Herald forgets which of its accounts are whose.`,
      "Remove", async () => {
        try {
          await api("DELETE", orgPath(org, "/sign-in/provider"));
          await reload(`${own.name} is removed.`);
        } catch (error) {
          errors.show(error.message);
          return false;
        }
      }, { accessibleName: `Remove the identity provider ${own.name}`, keepLabel: "Keep it" })));
  }
  return section;
}

/** The e-mail domains the organisation claims; its provider signs in only the confirmed ones. */
function domainsSection(org, membership, role, settings, reload) {
  const admin = role === "owner" || role === "admin";
  const errors = banner();
  const section = el("section", { class: "subsection", "aria-labelledby": "domains-heading" },
    el("h3", { id: "domains-heading" }, "E-mail domains"),
    el("p", { class: "help" }, `The identity provider signs in, and adds to ${membership.org.name}, only people whose e-mail domain this Herald's operator has confirmed is yours: a provider can claim any address. Add a domain here, then ask the operator to confirm it (they run `,
      el("code", {}, `herald domains confirm --org ${membership.org.slug} <domain>`), ")."), errors);
  const list = el("ul", { class: "rows", "aria-label": "E-mail domains" }, settings.domains.length
    ? settings.domains.map((d) => el("li", { class: "row", "data-domain": d.domain },
      el("div", { class: "row-main" }, el("strong", {}, d.domain), " ",
        d.status === "confirmed"
          ? el("span", { class: "badge accept" }, "Confirmed by the operator")
          : el("span", { class: "badge" }, "Waiting for the operator to confirm"),
        el("div", { class: "muted small" }, d.confirmed_at ? ["Confirmed ", time(d.confirmed_at)] : ["Added ", time(d.claimed_at)])),
      admin ? el("div", { class: "row-controls" }, confirmButton("Remove",
        `Remove ${d.domain}? Its people can no longer sign in through the organisation's provider.`, "Remove", async () => {
          try {
            await api("DELETE", orgPath(org, `/sign-in/domains/${encodeURIComponent(d.domain)}`));
            await reload(`${d.domain} is removed.`);
          } catch (error) {
            errors.show(error.message);
            return false;
          }
        }, { accessibleName: `Remove the domain ${d.domain}`, keepLabel: "Keep it" })) : null))
    : [el("li", { class: "muted" }, "No domains yet.")]);
  section.append(list);
  if (admin) {
    const domain = field("Domain", el("input", { name: "domain", placeholder: "example.com", autocomplete: "off" }));
    const add = el("button", { type: "submit" }, "Add domain");
    const form = el("form", { class: "inline-form", novalidate: true }, domain.node, add);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      busy(add, async () => {
        domain.setError("");
        try {
          const claimed = await api("POST", orgPath(org, "/sign-in/domains"), { domain: domain.control.value });
          await reload(`${claimed.domain} is added; it waits for the operator to confirm it.`);
          document.querySelector('input[name="domain"]')?.focus();
        } catch (error) {
          showProblem(error, (f, m) => (f === "domain" ? (domain.setError(m), true) : false), errors);
          domain.control.focus();
        }
      });
    });
    section.append(form);
  }
  return section;
}
