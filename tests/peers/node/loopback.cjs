// Preloaded with `node --require ./loopback.cjs`: makes every listen() that names no host
// (server-everything calls app.listen(PORT)) bind 127.0.0.1 instead of all interfaces.
// HERALD_PEER_HOST overrides the address (e.g. ::1).
"use strict";
const net = require("node:net");
const host = process.env.HERALD_PEER_HOST || "127.0.0.1";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || typeof args[0] === "string" && /^\d+$/.test(args[0])) {
    if (typeof args[1] !== "string") args.splice(1, 0, host);
  } else if (args[0] && typeof args[0] === "object" && !Array.isArray(args[0]) && args[0].path === undefined && args[0].host === undefined) {
    args[0] = { ...args[0], host };
  }
  return listen.apply(this, args);
};
