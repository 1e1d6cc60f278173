// Herald's dashboard: sign-in, first-run setup, accepting an invite, the
// inbox, and (from pages/) the member and admin pages of the selected org.
// Plain ES modules; nothing a server or a user typed is ever inserted as
// markup (textContent only).

import { api, el } from "./dom.js";
import { startInbox } from "./inbox.js";
import { isAdmin, renderNav, selectedMembership } from "./nav.js";
import { registerWorker } from "./push.js";
import { time } from "./ui.js";

const app = document.getElementById("app");
const nav = document.getElementById("nav");

/** The `#token=` secret of a one-time link (never sent in a URL). */
function linkToken() {
  return new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
}

function show(...nodes) {
  app.replaceChildren(...nodes);
  app.focus({ preventScroll: true }); // for assistive technology; the bar stays in view
}

/** A form whose fields are [name, label, type, help?]; shows field errors next to fields. */
function form(title, intro, fields, submitLabel, onSubmit) {
  const banner = el("div", { class: "banner", role: "alert", hidden: true });
  const inputs = {};
  const errors = {};
  const rows = fields.map(([name, label, type, help, value]) => {
    const id = `f-${name}`;
    inputs[name] = el("input", {
      id, name, type, value: value ?? "", required: true,
      autocomplete: type === "password" ? (name === "password" && title !== "Sign in" ? "new-password" : "current-password") : name,
      "aria-describedby": `${id}-help ${id}-error`,
    });
    errors[name] = el("p", { class: "error", id: `${id}-error`, "aria-live": "polite" });
    return el("div", {}, el("label", { for: id }, label), inputs[name],
      help ? el("p", { class: "help", id: `${id}-help` }, help) : null, errors[name]);
  });
  const submit = el("button", { type: "submit" }, submitLabel);
  const node = el("form", {
    class: "card", novalidate: true,
    onsubmit: async (event) => {
      event.preventDefault();
      banner.hidden = true;
      Object.values(errors).forEach((e) => (e.textContent = ""));
      submit.disabled = true;
      const values = Object.fromEntries(Object.entries(inputs).map(([k, input]) => [k, input.value]));
      let waiting = false;
      try {
        await onSubmit(values);
      } catch (error) {
        const fieldErrors = error.problem?.errors ?? [];
        let placed = false;
        for (const { field, message } of fieldErrors) {
          if (errors[field]) { errors[field].textContent = message; placed = true; }
        }
        if (!placed) { banner.textContent = error.message; banner.hidden = false; }
        // Told to wait (too many failed sign-ins: 429; busy: 503): say how long, and keep
        // the button off until then, counting down on it.
        const wait = error.problem?.retry_after;
        if (wait > 0) { waiting = true; holdOff(submit, submitLabel, wait, banner); }
      } finally {
        if (!waiting) submit.disabled = false;
      }
    },
  }, el("h1", {}, title), intro ? el("p", { class: "muted" }, intro) : null, banner, rows, submit);
  return node;
}

/** "1 second", "42 seconds", "15 minutes": a wait, for people. */
function waitWords(seconds) {
  if (seconds < 60) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

/**
 * Disables `button` for `seconds`, its label counting down ("Sign in (4:59)"); the banner
 * (announced once) says how long. Both come back when the wait is over.
 */
function holdOff(button, label, seconds, banner) {
  const until = Date.now() + seconds * 1000;
  const why = banner.textContent.replace(/[.;]? *try again in .*$/i, "");
  banner.textContent = `${why.charAt(0).toUpperCase()}${why.slice(1)}. Try again in ${waitWords(seconds)}.`;
  banner.hidden = false;
  button.disabled = true;
  const tick = () => {
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left <= 0) {
      button.textContent = label;
      button.disabled = false;
      banner.hidden = true;
      return;
    }
    button.textContent = `${label} (${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")})`;
    setTimeout(tick, 1000);
  };
  tick();
}

/**
 * The signed-in account, or null. Asks `/session` first, which answers 200 either way: a
 * signed-out visit then makes no failed request (the browser would log a 401 as an error).
 */
async function me() {
  try {
    const { signed_in: signedIn } = await api("GET", "/session");
    if (!signedIn) return null;
    const account = await api("GET", "/me");
    // A signed-in person's dashboard keeps the service worker that shows push notifications
    // (quietly skipped where the browser has none); it never delays the page.
    registerWorker();
    return account;
  } catch {
    return null;
  }
}

/** What a failed sign-in through an identity provider means (api/sso.rs names the codes). */
const SIGN_IN_FAILURES = {
  attempt_unknown: "That sign-in was already used or has expired. Start again.",
  other_browser: "That sign-in was started in another browser, or this browser lost its cookie. Start again here.",
  wrong_issuer: "The answer did not come from the identity provider Herald sent you to, so it was not trusted.",
  refused: "Your identity provider did not sign you in.",
  unreachable: "Herald could not reach the identity provider. Try again in a moment; if it goes on, tell your administrator.",
  misconfigured: "The identity provider is not set up correctly for Herald. Tell your administrator.",
  token_rejected: "The identity provider's answer could not be verified, so it was not trusted.",
  token_expired: "The identity provider's answer had already expired (is its clock right?). Try again; if it goes on, tell your administrator.",
  no_email: "Your identity provider did not tell Herald your e-mail address.",
  email_unverified: "Your identity provider has not verified your e-mail address.",
  domain_not_allowed: "People with this e-mail domain cannot sign in here.",
  domain_not_confirmed: "Your organisation's identity provider may not sign in people of this e-mail domain yet: this Herald's operator has not confirmed the domain is your organisation's.",
  not_linked: "An account with your e-mail address exists here but is not linked to this identity provider.",
  removed: "You were removed from the organisation.",
  no_provider: "That identity provider is not set up here.",
};

/**
 * "Sign in with your organisation's single sign-on": asks for the person's e-mail and goes to the
 * provider of the organisation its domain is confirmed for, or says there is none.
 */
function orgFinder(lookup, go) {
  const id = "sso-email";
  const input = el("input", { id, type: "email", name: "sso_email", autocomplete: "email", "aria-describedby": `${id}-said` });
  const said = el("p", { class: "error", id: `${id}-said`, "aria-live": "polite" });
  const submit = el("button", { type: "submit", class: "quiet" }, "Continue");
  const finderForm = el("form", { class: "sso-finder", novalidate: true, hidden: true, onsubmit: async (event) => {
    event.preventDefault();
    said.textContent = "";
    const email = input.value.trim();
    if (!email.includes("@")) { said.textContent = "Enter your work e-mail address."; input.focus(); return; }
    submit.disabled = true;
    try {
      const found = await lookup(email);
      if (found) go(found);
      else said.textContent = `No organisation's single sign-on is set up for ${email.split("@").pop()} here. Sign in with your password, or ask your administrator.`;
    } finally {
      submit.disabled = false;
    }
  } }, el("label", { for: id }, "Your work e-mail"), input, said, submit);
  const open = el("button", { type: "button", class: "quiet sso-open", "aria-expanded": "false", onclick: () => {
    finderForm.hidden = false;
    open.setAttribute("aria-expanded", "true");
    input.focus();
  } }, "Sign in with your organisation's single sign-on");
  return el("div", { class: "sso-find" }, open, finderForm);
}

const pages = {
  async "/"() {
    const account = await me();
    if (!account) return location.replace("/login");
    renderNav(nav, account);
    const inbox = el("section", { class: "wide" });
    const orgs = el("section", { class: "card" }, el("h2", {}, "Your organisations"),
      account.memberships.length
        ? el("ul", { class: "orgs" }, account.memberships.map((m) =>
          el("li", {}, el("span", {}, m.org.name, " ", el("span", { class: "muted" }, `(${m.org.slug})`)),
            el("span", { class: "muted" }, m.role))))
        : el("p", { class: "muted" }, "You are not a member of any organisation yet."));
    show(inbox, orgs);
    startInbox(inbox);
  },

  // The person's own notification settings: not of one org (every org's values are on the page).
  async "/notifications"() {
    const account = await me();
    if (!account) return location.replace("/login");
    app.classList.add("page");
    renderNav(nav, account);
    const module = await import("./pages/notifications.js");
    const mount = el("div", { class: "page-root" });
    app.replaceChildren(mount);
    await module.default(mount, { account });
    app.focus({ preventScroll: true }); // for assistive technology; the bar stays in view
  },

  // The person's connections to servers that act as them: in every org, like Notifications.
  async "/connections"() {
    const account = await me();
    if (!account) return location.replace(`/login?return_to=${encodeURIComponent(location.pathname + location.search)}`);
    app.classList.add("page");
    renderNav(nav, account);
    const module = await import("./pages/connections.js");
    const mount = el("div", { class: "page-root" });
    app.replaceChildren(mount);
    await module.default(mount, { account });
    // The page may have focused something itself (the Connect link of `?connect=`): keep it.
    if (!mount.contains(document.activeElement)) app.focus({ preventScroll: true });
  },

  async "/login"() {
    const params = new URLSearchParams(location.search);
    let options = { password: true, providers: [], org_providers: false };
    // `?org=slug` (a link an organisation hands its people) adds that organisation's provider.
    const orgParam = params.get("org");
    try {
      options = await api("GET", `/auth/sign-in-options${orgParam ? `?org=${encodeURIComponent(orgParam)}` : ""}`);
    } catch { /* the password form still works */ }
    const failure = params.get("sso_error");
    const detail = params.get("sso_detail");
    // Said once: a reload shows the plain page.
    if (failure) history.replaceState(null, "", params.get("return_to") ? `/login?return_to=${encodeURIComponent(params.get("return_to"))}` : "/login");
    const failed = failure ? el("div", { class: "banner", role: "alert" },
      SIGN_IN_FAILURES[failure] ?? "Signing in through your identity provider did not work.",
      detail ? el("span", { class: "detail" }, ` (${detail})`) : null) : null;
    // Where to go afterwards: a path on Herald only.
    const given = params.get("return_to") ?? "";
    const returnTo = /^\/(?![/\\])/.test(given) ? given : "/";
    const button = (p) => el("a", { class: "button sso", href: `${p.start}?return_to=${encodeURIComponent(returnTo)}` }, `Sign in with ${p.name}`);
    const providers = options.providers.map(button);
    const buttons = el("div", { class: "sso-buttons" }, providers);
    /** The provider of the organisation `email`'s domain is confirmed for, if any. */
    const orgProviderFor = async (email) => {
      try {
        const found = await api("GET", `/auth/sign-in-options?email=${encodeURIComponent(email)}`);
        return found.providers.find((p) => p.key.startsWith("org:")) ?? null;
      } catch {
        return null;
      }
    };
    // Where organisations may have their own provider: found by the person's e-mail.
    const finder = options.org_providers ? orgFinder(orgProviderFor, (p) => location.assign(button(p).href)) : null;
    const passwordForm = options.password
      ? form("Sign in", null, [["email", "Email", "email"], ["password", "Password", "password"]], "Sign in",
        async (values) => {
          try {
            await api("POST", "/auth/login", values);
          } catch (error) {
            // Refused because the organisation signs in through its own provider: offer its button.
            const own = error.problem?.type?.endsWith("password-sign-in-off") ? await orgProviderFor(values.email) : null;
            if (own && !buttons.querySelector(`a[href^="${own.start}"]`)) buttons.append(button(own));
            throw error;
          }
          location.assign(returnTo);
        })
      : null;
    if (!passwordForm) {
      return show(el("section", { class: "card" }, el("h1", {}, "Sign in"), failed, buttons, finder));
    }
    passwordForm.querySelector("h1").after(failed ?? "", buttons,
      providers.length ? el("p", { class: "muted or" }, "or with your password") : "");
    // A new attempt with the password replaces what the provider's failure said.
    if (failed) passwordForm.addEventListener("submit", () => failed.remove());
    // Its own card: a form may not hold another.
    show(passwordForm, ...(finder ? [el("section", { class: "card" }, finder)] : []));
  },

  async "/setup"() {
    const status = await api("GET", "/setup");
    if (!status.required) {
      return show(el("section", { class: "card" }, el("h1", {}, "Herald is set up"),
        el("p", {}, "This instance already has its first owner. ", el("a", { href: "/login" }, "Sign in"), ".")));
    }
    const token = linkToken();
    show(form("Set up Herald", "Create the first organisation and its owner.", [
      ["org_name", "Organisation name", "text"],
      ["org_slug", "Organisation slug", "text", "Lowercase letters, digits and hyphens; it appears in URLs."],
      ["name", "Your name", "text"],
      ["email", "Your email", "email"],
      ["password", "Password", "password", "At least 10 characters."],
    ], "Create organisation", async (values) => {
      await api("POST", "/setup", { token, ...values });
      history.replaceState(null, "", "/setup");
      location.assign("/");
    }));
  },

  async "/invite"() {
    const token = linkToken();
    let invite;
    try {
      invite = await api("POST", "/invites/preview", { token });
    } catch (error) {
      return show(el("section", { class: "card" }, el("h1", {}, "This invite cannot be used"), el("p", {}, error.message)));
    }
    // The same date format as everywhere else in the dashboard (ui.js time()).
    const intro = [`Join ${invite.org.name} as ${invite.role} (${invite.email}). The link works until `, time(invite.expires_at), "."];
    const account = await me();
    if (account?.user.email === invite.email) {
      return show(el("section", { class: "card" }, el("h1", {}, "Accept the invite"), el("p", {}, intro),
        el("button", { type: "button", onclick: async () => {
          await api("POST", "/invites/accept", { token });
          location.assign("/");
        } }, "Accept")));
    }
    // Herald does not say whether this email has an account (that would tell whoever holds
    // the link): one form serves both, and the answer decides.
    const elsewhere = account ? ` You are signed in as ${account.user.email}; joining signs you in as ${invite.email}.` : "";
    show(form("Accept the invite", [...intro, elsewhere], [
      ["name", "Your name", "text", "For a new account. An existing account keeps its name."],
      ["password", "Password", "password",
        `New to Herald: choose one of at least 10 characters. Already have an account for ${invite.email}: its password.`],
    ], "Join", async (values) => {
      await api("POST", "/invites/accept", { token, ...values });
      location.assign("/");
    }));
  },
};

// Org-scoped pages: path -> [module under pages/, admins only?]. Each module's
// default export draws the page: render(root, { org, role, account, membership }).
const orgPages = {
  "/history": ["history.js", false],
  "/tokens": ["tokens.js", false],
  "/mutes": ["mutes.js", false],
  "/connect": ["connect.js", false],
  "/console": ["console.js", false],
  "/admin/pending": ["pending.js", true],
  "/admin/members": ["members.js", true],
  "/admin/servers": ["servers.js", true],
  "/admin/webhooks": ["webhooks.js", true],
  "/admin/policy": ["policy.js", true],
  "/admin/audit": ["audit.js", true],
};

async function orgPage([file, adminOnly]) {
  const account = await me();
  if (!account) return location.replace("/login");
  app.classList.add("page");
  const draw = async (membership, initial) => {
    if (!membership) {
      return show(el("section", { class: "card" }, el("h1", {}, "No organisation yet"),
        el("p", {}, "You are not a member of any organisation. Ask an admin for an invite.")));
    }
    if (adminOnly && !isAdmin(membership)) {
      return show(el("section", { class: "card" }, el("h1", {}, "For admins"),
        el("p", {}, `This page is for admins and owners of ${membership.org.name}. Your role there is ${membership.role}.`)));
    }
    const module = await import(`./pages/${file}`);
    // A fresh mount per draw: a slower draw for a previously selected org lands in a detached node.
    const mount = el("div", { class: "page-root" });
    app.replaceChildren(mount);
    await module.default(mount, { org: membership.org.slug, role: membership.role, account, membership });
    if (initial) app.focus({ preventScroll: true }); // for assistive technology; the bar stays in view
  };
  const redraw = (membership) => draw(membership).catch(failed);
  renderNav(nav, account, redraw);
  // A page changed the account itself (e.g. one's own role): fetch it again and redraw.
  addEventListener("herald:account-changed", async () => {
    const fresh = await me();
    if (!fresh) return location.assign("/login");
    Object.assign(account, fresh);
    renderNav(nav, account, redraw);
    await redraw(selectedMembership(account));
  });
  await draw(selectedMembership(account), true);
}

function failed(error) {
  show(el("section", { class: "card" }, el("h1", {}, "Something went wrong"), el("p", { role: "alert" }, error.message)));
}

// A one-time link pasted into the same tab changes only the fragment: start over with it.
window.addEventListener("hashchange", () => {
  if (["/setup", "/invite"].includes(location.pathname)) location.reload();
});

const path = location.pathname.replace(/\/+$/, "") || "/";
const page = orgPages[path] ? () => orgPage(orgPages[path]) : pages[path] ?? pages["/"];
page().catch(failed);
