// Connect an agent: for every server of the selected org, the MCP endpoint
// URL Herald serves it on and a ready-to-paste client configuration (Streamable
// HTTP, with an Authorization header placeholder), each with a Copy button.

import { api, el } from "../dom.js";
import { banner, copyButton, heading, orgPath } from "../ui.js";

export default async function render(root, { org, membership }) {
  const errors = banner();
  const list = el("div", { class: "stack" });
  root.append(el("section", { class: "card" },
    heading("Connect an agent", `Point any MCP client (Claude Code, VS Code, your own agent) at Herald instead of the server itself. Herald asks you, in this dashboard, whenever a server needs your input.`),
    el("ol", { class: "steps" },
      el("li", {}, "Create a token on the ", el("a", { href: "/tokens" }, "Tokens"), " page."),
      el("li", {}, "Copy a server's configuration below into your client's MCP settings."),
      el("li", {}, "Replace ", el("code", {}, "<your token>"), " with the token.")),
    errors), list);

  try {
    const { servers } = await api("GET", orgPath(org, "/servers"));
    list.replaceChildren(...(servers.length ? servers.map((s) => card(org, s))
      : [el("p", { class: "card muted" }, `${membership.org.name} has no servers yet. An admin registers them.`)]));
  } catch (error) {
    errors.show(error.message);
  }
}

function card(org, server) {
  const url = `${location.origin}/mcp/${encodeURIComponent(org)}/${encodeURIComponent(server.slug)}`;
  const config = JSON.stringify({
    mcpServers: {
      [`${org}-${server.slug}`]: { type: "http", url, headers: { Authorization: "Bearer <your token>" } },
    },
  }, null, 2);
  const urlNode = el("code", { class: "url-line" }, url);
  const configNode = el("pre", { class: "snippet", tabindex: "0", "aria-label": `Client configuration for ${server.name}` }, config);
  return el("section", { class: "card", "aria-label": server.name },
    el("h2", {}, server.name, " ", el("span", { class: "muted" }, `(${server.slug})`)),
    server.cut_off ? el("p", { class: "warning" }, "Cut off by an admin: calls to this server are refused.",
      server.cut_off.reason ? ` Reason: ${server.cut_off.reason}` : "") : null,
    el("h3", {}, "MCP endpoint"),
    el("div", { class: "copy-line" }, urlNode, copyButton(() => url, { label: "Copy URL", target: urlNode, accessibleName: `Copy the endpoint URL of ${server.name}` })),
    el("h3", {}, "Client configuration"),
    el("p", { class: "help" }, "JSON for clients that read an ", el("code", {}, "mcpServers"), " map (e.g. Claude Code's .mcp.json); transport: Streamable HTTP."),
    configNode,
    el("div", { class: "actions" }, copyButton(() => config, { label: "Copy configuration", target: configNode, accessibleName: `Copy the client configuration for ${server.name}` })));
}
