// Preload for third-party Node MCP peers: `node --require ./loopback.cjs <server>`.
//
// 1. Every listen() that names no host (server-everything calls `app.listen(PORT)`, which
//    would bind all interfaces) binds 127.0.0.1 instead; HERALD_PEER_HOST overrides it.
// 2. With HERALD_PEER_READY=1 (set by ../run-everything.sh): when the first TCP server starts
//    listening, prints exactly `READY <port>` on stdout (the real port, so PORT=0 works),
//    matching the Python peer's readiness line.
"use strict";
const net = require("node:net");
const host = process.env.HERALD_PEER_HOST || "127.0.0.1";
const listen = net.Server.prototype.listen;
let announced = process.env.HERALD_PEER_READY !== "1";
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    if (typeof args[1] !== "string") args.splice(1, 0, host);
  } else if (first && typeof first === "object" && first.path === undefined && first.host === undefined) {
    args[0] = { ...first, host };
  }
  this.once("listening", () => {
    const addr = this.address();
    if (!announced && addr && typeof addr === "object") {
      announced = true;
      process.stdout.write(`READY ${addr.port}\n`);
    }
  });
  return listen.apply(this, args);
};
