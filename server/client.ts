import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import proxyaddr from "proxy-addr";
import type { Client } from "~/domain/platform/client";

/**
 * Who the client is. The peer address comes from the socket; X-Forwarded-For is believed only
 * as far as TRUST_PROXY allows, taking the right-most entry that was not added by a trusted
 * proxy (what nginx's `proxy_add_x_forwarded_for` appends is real; what the client wrote on
 * the left is not). See docs/decisions/0007-own-server.md.
 */
export type Trust = (address: string, hop: number) => boolean;

/** TRUST_PROXY: unset/false = nobody; a hop count; or a list of addresses, CIDRs or names (loopback, uniquelocal, linklocal). */
export function parseTrustProxy(value: string | undefined): Trust {
  const v = (value ?? "").trim();
  if (!v || v === "false" || v === "0") return () => false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  if (v === "true") {
    throw new Error(
      "TRUST_PROXY=true would let any client choose its own address: give a hop count or proxy addresses",
    );
  }
  return proxyaddr.compile(
    v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

function normalise(address: string | undefined): string {
  if (!address) return "unknown";
  const a = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return a.toLowerCase();
}

export type ResolvedClient = Client & { viaTrustedProxy: boolean };

export function resolveClient(req: IncomingMessage, trust: Trust): ResolvedClient {
  const peer = req.socket.remoteAddress;
  const viaTrustedProxy = !!peer && trust(peer, 0);
  // proxy-addr walks from the socket leftwards through X-Forwarded-For while hops are trusted.
  const ip = viaTrustedProxy ? proxyaddr(req, trust) : peer;
  const ua = req.headers["user-agent"];
  return {
    ip: normalise(ip),
    userAgent: typeof ua === "string" ? ua.slice(0, 256) : null,
    viaTrustedProxy,
  };
}
