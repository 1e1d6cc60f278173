// Connections: the servers that act as each person (OAuth sign-in), in every
// organisation of the person's: connected or not, with what they granted and
// until when; Connect (or Connect again, to renew or add permissions) goes
// to Herald's connect page, which first brings the person back here to review
// what they agree to (`?review=org/server&ticket=…`: which server, which
// sign-in, which permissions) and, on Continue, sends the browser to the
// server's sign-in; Disconnect revokes the tokens there and forgets them here.

import { api, el } from "../dom.js";
import { banner, confirmButton, heading, status, time } from "../ui.js";

/** What a failed connection means (api/connections.rs names the codes). */
const FAILURES = {
  attempt_unknown: "That connection attempt was already used or has expired. Start again.",
  other_browser: "That connection was started in another browser, or this browser lost its cookie. Start again here.",
  wrong_issuer: "The answer did not come from the authorization server Herald sent you to, so it was not trusted.",
  refused: "The server's sign-in did not connect your account.",
  unreachable: "Herald could not reach the server or its sign-in. Try again in a moment.",
  misconfigured: "The server's sign-in is not set up in a way Herald can trust. Tell an admin of the organisation.",
  not_protected: "The server does not say how to sign in to it. Tell an admin of the organisation.",
  no_client: "Herald is not registered at the server's sign-in yet. An admin must enter a client for it.",
  token_rejected: "The server's sign-in gave an answer Herald cannot use.",
  not_oauth: "That server does not ask each person to sign in.",
  no_server: "That server does not exist, or you are not a member of its organisation.",
};

export default async function render(root) {
  const params = new URLSearchParams(location.search);
  const said = status();
  const errors = banner();
  const list = el("ul", { class: "rows", tabindex: "-1", "aria-label": "Servers that act as you" });
  const wanted = params.get("connect");
  const connected = params.get("connected");
  const failure = params.get("connect_error");
  // Said once: a reload shows the plain page.
  if (connected || failure) history.replaceState(null, "", wanted ? `/connections?connect=${wanted}` : "/connections");
  const notice = failure
    ? el("div", { class: "banner", role: "alert" }, FAILURES[failure] ?? "Connecting did not work.",
      params.get("server") ? ` (${params.get("server")})` : "",
      params.get("detail") ? el("span", { class: "detail" }, ` ${params.get("detail")}`) : null)
    : null;

  const row = (c) => {
    const target = `${c.org}/${c.server}`;
    const connect = el("a", { class: "button-link", href: c.connect, "aria-label": `${c.connected ? "Connect again to" : "Connect to"} ${c.server_name}` },
      c.connected ? "Connect again" : "Connect");
    const disconnect = c.connected ? confirmButton("Disconnect",
      `Disconnect ${c.server_name}? Herald revokes your access at its sign-in and forgets it; your agents' calls to it stop until you connect again.`,
      "Disconnect", async () => {
        try {
          await api("DELETE", `/me/connections/${encodeURIComponent(c.org)}/${encodeURIComponent(c.server)}`);
          said.say(`Disconnected from ${c.server_name}.`);
          await refresh();
        } catch (error) {
          errors.show(error.message);
          return false;
        }
      }, { accessibleName: `Disconnect ${c.server_name}`, keepLabel: "Stay connected" }) : null;
    const facts = c.connected
      ? [el("div", { class: "muted small" }, "Connected ", time(c.connected_at), c.issuer ? ` at ${c.issuer}` : ""),
        el("div", { class: "muted small" }, c.scopes.length ? `Permissions: ${c.scopes.join(", ")}` : "No permissions listed"),
        el("div", { class: "muted small" }, c.expires_at
          ? [c.renewable ? "Renewed automatically; the current access ends " : "Ends ", time(c.expires_at)]
          : "No end date given")]
      : [el("div", { class: "muted small" }, "Not connected: a call by your agents to it waits while Herald asks you, in your inbox, to connect.")];
    return el("li", { class: `row${target === wanted ? " wanted" : ""}`, "data-target": target },
      el("div", { class: "row-main" }, el("strong", {}, c.server_name), " ", el("span", { class: "muted" }, `(${target})`),
        c.connected ? el("span", { class: "badge accept" }, "Connected") : el("span", { class: "badge" }, "Not connected"), ...facts),
      el("div", { class: "row-controls" }, connect, disconnect));
  };

  const refresh = async () => {
    try {
      const { connections } = await api("GET", "/me/connections");
      list.replaceChildren(...(connections.length ? connections.map(row)
        : [el("li", { class: "muted" }, "No server in your organisations asks each person to sign in.")]));
      errors.show("");
      const done = connections.find((c) => `${c.org}/${c.server}` === connected);
      if (done) said.say(`Connected to ${done.server_name}. Your agents' calls to it now act as you.`);
      const focus = list.querySelector(".wanted a");
      if (focus && !connected) focus.focus();
    } catch (error) {
      errors.show(error.message);
    }
  };

  const reviewed = params.get("review");
  const ticket = params.get("ticket");
  const review = reviewed && ticket ? await reviewCard(reviewed, ticket) : null;

  root.append(...(review ? [review] : []), el("section", { class: "card" },
    heading("Connections", "Servers that act as you: each asks you to sign in once, at its own sign-in page, and Herald keeps your access sealed and renews it. Nobody else's calls use it."),
    notice, said, errors, list));
  await refresh();
  review?.querySelector("a.primary")?.focus();
}

/** Herald's consent step: what connecting to `target` means, before the server's sign-in. */
async function reviewCard(target, ticket) {
  const card = el("section", { class: "card review", "aria-labelledby": "review-heading" });
  let shown;
  try {
    shown = await api("GET", `/me/connections/review?ticket=${encodeURIComponent(ticket)}`);
  } catch (error) {
    const again = `/connect/${target.split("/").map(encodeURIComponent).join("/")}/start`;
    card.append(el("h2", { id: "review-heading" }, "Connect"),
      el("p", { class: "error", role: "alert" }, error.message),
      el("a", { class: "button-link primary", href: again }, "Start again"));
    return card;
  }
  let host = shown.issuer;
  try { host = new URL(shown.issuer).host; } catch { /* shown as given */ }
  const scopes = shown.scopes.length
    ? el("ul", { class: "scopes" }, shown.scopes.map((s) => el("li", {}, el("code", {}, s))))
    : el("p", { class: "muted" }, "It asks for no particular permissions.");
  card.append(
    el("h2", { id: "review-heading" }, `Connect to ${shown.server.name}?`),
    el("p", {}, `${shown.server.name} in ${shown.org.name} acts as each person. Herald will send you to `,
      el("strong", {}, host), ` to sign in as yourself. If you agree there, Herald keeps the access it grants, sealed, and uses it only for your own agents' calls to ${shown.server.name}.`),
    ...(shown.connected ? [el("p", { class: "muted" }, "You are connected already: this connects you again (to renew your access or grant more).")] : []),
    el("p", {}, `${shown.server.name} asks for:`), scopes,
    el("p", { class: "muted small" }, `Herald signs in at ${host} with one client for everyone it serves, so it asks you here first, every time. Server address: ${shown.server.url}.`),
    el("div", { class: "row-controls" },
      el("a", { class: "button-link primary", href: shown.continue_to }, `Continue to ${host}`),
      el("a", { class: "button-link secondary", href: "/connections" }, "Cancel")));
  return card;
}
