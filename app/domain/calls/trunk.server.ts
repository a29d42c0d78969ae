import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { config } from "~/config.server";
import { log } from "~/lib/log.server";

/**
 * Where the SIP line takes missed calls from (decision 0101): only the trunk's or gateway's
 * addresses. A forged INVITE from anywhere else, with any caller number, would otherwise make the
 * clinic ring that number back. VOICE_SIP_TRUSTED lists IP addresses, CIDR ranges and host names;
 * unset, the host of VOICE_URL. Host names are looked up again after RESOLVE_MS; a failed look-up
 * keeps the addresses last found, and a name never found trusts nothing (a call is refused, not
 * taken).
 */

const RESOLVE_MS = 5 * 60_000;

/** The entries as configured (what the admins' Calls tab shows). */
export function trustedSources(): string[] {
  const v = config().voice;
  if (v.sipTrusted.length) return v.sipTrusted;
  return v.url ? [v.url.hostname.replace(/^\[(.*)\]$/, "$1")] : [];
}

const resolved = new Map<string, { addresses: string[]; at: number }>();

async function addressesOf(name: string): Promise<string[]> {
  const known = resolved.get(name);
  if (known && Date.now() - known.at < RESOLVE_MS) return known.addresses;
  try {
    const found = await lookup(name, { all: true, verbatim: true });
    const addresses = found.map((a) => a.address);
    resolved.set(name, { addresses, at: Date.now() });
    return addresses;
  } catch (err) {
    log("warn", "a trusted SIP host could not be looked up", {
      host: name,
      error: String((err as Error)?.message ?? err),
    });
    return known?.addresses ?? [];
  }
}

function add(list: BlockList, address: string, prefix?: number) {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  if (prefix === undefined) list.addAddress(address, family);
  else list.addSubnet(address, prefix, family);
}

/** The trusted addresses now, host names looked up. */
async function trustedList(): Promise<BlockList> {
  const list = new BlockList();
  for (const entry of trustedSources()) {
    const [address, prefix] = entry.split("/");
    if (isIP(address)) add(list, address, prefix === undefined ? undefined : Number(prefix));
    else for (const a of await addressesOf(address)) add(list, a);
  }
  return list;
}

/**
 * The address of a SIP source as baresip's trace writes it (`203.0.113.10:5060`, `[2001:db8::1]:5060`),
 * without its port; an IPv4 address mapped into IPv6 as plain IPv4.
 */
export function addressOf(source: string): string | null {
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(source) ?? /^([^:]+)(?::\d+)?$/.exec(source);
  const address = m?.[1].replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1") ?? "";
  return isIP(address) ? address : null;
}

/** A check of sources (address:port) against the trunk's addresses as they are now. */
export async function trustedCheck(): Promise<(source: string) => boolean> {
  const list = await trustedList();
  return (source) => {
    const address = addressOf(source);
    return !!address && list.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
  };
}
