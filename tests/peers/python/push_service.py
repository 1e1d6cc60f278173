"""A Web Push service for Herald's tests (RFC 8030), on loopback.

It plays both the push service and the browser behind it: it makes each
subscription's key pair and authentication secret the way a browser does,
accepts messages at the subscription's endpoint like a push service, checks
the VAPID authorization (RFC 8292) with py_vapid and decrypts the message
(RFC 8291, aes128gcm) with http_ece, neither of which shares any code with
Herald. What it received is read back over a small JSON API:

  POST /subscriptions  {"application_server_key": "<base64url>", "respond": [410, 500, ...]}
      -> {"id", "endpoint", "keys": {"p256dh", "auth"}}: a subscription made
         for that VAPID key (a message signed by another is refused with 403,
         as push services do); "respond" are the statuses the endpoint answers
         with first, in order (then 201).
  GET  /subscriptions/<id>/messages
      -> [{"status", "headers": {...}, "claims": {...}, "message": {...}} or
          {"status", "error": "..."}], oldest first.
  POST /push/<id>      the endpoint Herald sends to.

Usage: python push_service.py  (prints "listening <port>" once it is ready)
"""

import base64
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import jwt as vapid_jwt

# The largest message a push service must accept (RFC 8030 section 7.2).
MAX_BODY = 4096
LOCK = threading.Lock()
SUBSCRIPTIONS = {}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_vapid(header):
    """The t= and k= parameters of `Authorization: vapid t=..., k=...`
    (auth-params, comma separated, optional whitespace: RFC 7235)."""
    scheme, _, params = header.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError("the Authorization scheme is not vapid: %r" % scheme)
    parts = {}
    for param in params.split(","):
        name, _, value = param.strip().partition("=")
        parts[name.strip().lower()] = value.strip()
    if "t" not in parts or "k" not in parts:
        raise ValueError("the vapid Authorization lacks t= or k=")
    return parts["t"], parts["k"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self, limit):
        length = int(self.headers.get("Content-Length") or 0)
        if length > limit:
            self.rfile.read(length)
            return None
        return self.rfile.read(length)

    def do_POST(self):
        path = urlsplit(self.path).path
        if path == "/subscriptions":
            return self.subscribe()
        if path.startswith("/push/"):
            return self.push(path[len("/push/"):])
        self.reply(404)

    def do_GET(self):
        parts = urlsplit(self.path).path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "subscriptions" and parts[2] == "messages":
            with LOCK:
                sub = SUBSCRIPTIONS.get(parts[1])
                if sub is None:
                    return self.reply(404)
                return self.reply(200, list(sub["messages"]))
        self.reply(404)

    def subscribe(self):
        asked = json.loads(self.read_body(65536) or b"{}")
        private = ec.generate_private_key(ec.SECP256R1())
        public = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        auth = uuid.uuid4().bytes
        sub_id = uuid.uuid4().hex
        host, port = self.server.server_address[:2]
        sub = {
            "id": sub_id,
            "endpoint": "http://%s:%d/push/%s" % (host, port, sub_id),
            "private": private,
            "auth": auth,
            "server_key": asked.get("application_server_key"),
            "respond": list(asked.get("respond") or []),
            "messages": [],
        }
        with LOCK:
            SUBSCRIPTIONS[sub_id] = sub
        self.reply(
            201,
            {"id": sub_id, "endpoint": sub["endpoint"], "keys": {"p256dh": b64url(public), "auth": b64url(auth)}},
        )

    def push(self, sub_id):
        with LOCK:
            sub = SUBSCRIPTIONS.get(sub_id)
        body = self.read_body(MAX_BODY)
        if sub is None:
            return self.reply(404)
        if body is None:
            return self.record(sub, 413, {"error": "the message is larger than %d bytes" % MAX_BODY})
        try:
            record = self.check(sub, body)
        except Exception as e:  # every failure is a finding the test reads
            return self.record(sub, 400 if not isinstance(e, PermissionError) else 403, {"error": str(e)})
        with LOCK:
            status = sub["respond"].pop(0) if sub["respond"] else 201
        self.record(sub, status, record)

    def record(self, sub, status, record):
        record["status"] = status
        with LOCK:
            sub["messages"].append(record)
        self.send_response(status)
        self.send_header("Content-Length", "0")
        if status == 201:
            self.send_header("Location", "/messages/%s" % uuid.uuid4().hex)
        self.end_headers()

    def check(self, sub, body):
        token, key = parse_vapid(self.headers.get("Authorization") or "")
        if sub["server_key"] and key != sub["server_key"]:
            raise PermissionError("signed with a key the subscription was not made for")
        # py_vapid checks the ES256 signature against k and returns the claims.
        claims = vapid_jwt.decode(token, key)
        host, port = self.server.server_address[:2]
        origin = "http://%s:%d" % (host, port)
        if claims.get("aud") != origin:
            raise ValueError("aud is %r, not this push service's origin %r" % (claims.get("aud"), origin))
        lifetime = int(claims.get("exp", 0)) - time.time()
        if not 0 < lifetime <= 24 * 3600:
            raise ValueError("exp is not within the next 24 hours")
        sub_claim = str(claims.get("sub", ""))
        if not (sub_claim.startswith("mailto:") or sub_claim.startswith("https:")):
            raise ValueError("sub is neither a mailto: nor an https: URI: %r" % sub_claim)
        if (self.headers.get("Content-Encoding") or "").lower() != "aes128gcm":
            raise ValueError("Content-Encoding is not aes128gcm")
        if self.headers.get("TTL") is None:
            raise ValueError("no TTL header (RFC 8030 section 5.2 requires one)")
        plain = http_ece.decrypt(body, private_key=sub["private"], auth_secret=sub["auth"], version="aes128gcm")
        return {
            "headers": {
                name.lower(): self.headers.get(name)
                for name in ("TTL", "Urgency", "Topic", "Content-Encoding", "Content-Type")
                if self.headers.get(name) is not None
            },
            "claims": claims,
            "size": len(body),
            "message": json.loads(plain),
        }


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print("listening %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
