// The navigation bar: the organisation switcher (the selected org is kept in
// localStorage and used by every org-scoped page), links to the pages (admin
// pages only for admins and owners of the selected org), and sign-out; on a
// narrow screen all of it folds behind a menu button.

import { api, el } from "./dom.js";
import { forgetThisBrowser } from "./push.js";

const KEY = "herald.org";

const MEMBER_LINKS = [["/", "Inbox"], ["/history", "History"], ["/tokens", "Tokens"], ["/mutes", "Mutes"], ["/console", "Try a tool"], ["/connect", "Connect an agent"], ["/connections", "Connections"], ["/notifications", "Notifications"]];
const ADMIN_LINKS = [["/admin/pending", "Pending"], ["/admin/members", "Members"], ["/admin/servers", "Servers"], ["/admin/webhooks", "Webhooks"], ["/admin/policy", "Policy"], ["/admin/audit", "Audit log"]];

export const isAdmin = (membership) => membership?.role === "owner" || membership?.role === "admin";

/** Makes `slug` the selected org (for a link that leads into another org's page). */
export function selectOrg(slug) {
  localStorage.setItem(KEY, slug);
}

/** The stored selected org's slug, if any (it may no longer be one of the person's). */
export const storedOrg = () => localStorage.getItem(KEY);

/** The membership of the selected org (the stored one if still a member, else the first). */
export function selectedMembership(account) {
  const list = account?.memberships ?? [];
  const stored = localStorage.getItem(KEY);
  return list.find((m) => m.org.slug === stored) ?? list[0] ?? null;
}

function link(href, label) {
  const here = location.pathname === href;
  return el("li", {}, el("a", { href, "aria-current": here ? "page" : null }, label));
}

/**
 * On a narrow screen the bar folds into a menu: index.html's disclosure button shows and hides
 * `nav` (styles.css hides it there until opened). Escape closes it (focus back on the button),
 * and so does following one of its links; the wide layout never shows the button.
 */
function menu(nav) {
  const toggle = document.getElementById("menu-toggle");
  if (!toggle || toggle.dataset.ready) return toggle;
  toggle.dataset.ready = "true";
  const open = (yes) => {
    toggle.setAttribute("aria-expanded", String(yes));
    nav.classList.toggle("open", yes);
  };
  toggle.addEventListener("click", () => open(toggle.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || toggle.getAttribute("aria-expanded") !== "true") return;
    // Focus inside the menu goes back to its button; elsewhere it stays where it is.
    const inBar = toggle.parentElement.contains(document.activeElement);
    open(false);
    if (inBar) toggle.focus();
  });
  nav.addEventListener("click", (event) => { if (event.target.closest("a[href]")) open(false); });
  // A page restored from the back/forward cache comes back closed, as a fresh one would.
  addEventListener("pageshow", (event) => { if (event.persisted) open(false); });
  return toggle;
}

/** Draws the bar for `account`; `onSwitch(membership)` runs after the org changes. */
export function renderNav(nav, account, onSwitch) {
  nav.replaceChildren();
  const toggle = menu(nav);
  if (toggle) toggle.hidden = !account;
  if (!account) return;
  const current = selectedMembership(account);
  const parts = [];
  if (account.memberships.length) {
    const select = el("select", { id: "org-switch", onchange: () => {
      localStorage.setItem(KEY, select.value);
      renderNav(nav, account, onSwitch);
      document.getElementById("org-switch")?.focus();
      onSwitch?.(selectedMembership(account));
    } }, account.memberships.map((m) =>
      el("option", { value: m.org.slug, selected: m.org.slug === current?.org.slug }, `${m.org.name} (${m.role})`)));
    parts.push(el("div", { class: "org-switch" }, el("label", { for: "org-switch" }, "Organisation"), select));
  }
  const links = el("ul", { class: "nav-links" }, MEMBER_LINKS.map(([href, label]) => link(href, label)));
  const admin = isAdmin(current)
    ? el("ul", { class: "nav-links admin", "aria-label": "Administration" },
      el("li", { class: "nav-group", "aria-hidden": "true" }, "Admin"), ADMIN_LINKS.map(([href, label]) => link(href, label)))
    : null;
  const who = el("div", { class: "nav-account" }, el("span", { class: "muted who" }, account.user.email),
    el("button", { class: "quiet", type: "button", onclick: async (event) => {
      event.currentTarget.disabled = true;
      // This browser's push notifications are the person's: they stop with the session.
      await forgetThisBrowser();
      await api("POST", "/auth/logout").catch(() => {});
      location.assign("/login");
    } }, "Sign out"));
  // The org switcher and account come first, as they are drawn (top right); the page links below.
  nav.append(el("div", { class: "nav-side" }, parts, who), el("nav", { class: "nav-links-wrap", "aria-label": "Pages" }, links, admin));
  // The inbox's one-click cut-off acts on the selected org when the user administers it.
  // The inbox offers a notice's one-click cut-off only in orgs the user administers.
  document.body.dataset.adminOrgs = account.memberships.filter(isAdmin).map((m) => m.org.slug).join(" ");
}
