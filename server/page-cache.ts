import { randomBytes } from "node:crypto";
import { brotliCompressSync, constants, crc32, deflateRawSync } from "node:zlib";

/**
 * Whole rendered pages that are the same for every visitor who asks the same way (the signed-out
 * home, login and signup pages in one language), kept in this process's memory for a short
 * while. What may be kept, and under which key, is the app's decision (`pageCacheKey`, and the
 * render itself saying it drew nothing personal); this module only keeps and serves the bytes.
 *
 * The CSP stays as strict as for a rendered page: each answer carries a nonce of its own. A kept
 * page is stored split at every place its render's nonce appeared (body and headers), and each
 * answer joins the parts with a fresh one. The gzip form is kept too, as raw-deflate segments
 * that each end on a byte boundary (a sync flush): an answer is the segments with the new nonce
 * between them as stored (uncompressed) blocks, one gzip header and the trailer's CRC — so a
 * kept page is sent compressed without compressing it again.
 */
export type CachedPage = {
  status: number;
  /** Header values split at the render's nonce. */
  headers: [string, string[]][];
  parts: Buffer[];
  deflated: Buffer[];
  expires: number;
  /** The route pattern for the log line. */
  route?: string;
};

export type PageAnswer = { status: number; headers: Record<string, string>; body: Buffer; route?: string };

/** How long a kept page is served before it is drawn again (nothing on these pages changes faster). */
const TTL_MS = 60_000;
/** Keys are bounded by the app, but Accept-Language comes from the client: keep at most this many. */
const MAX_ENTRIES = 64;

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]);
/** The gzip trailer's "final block": an empty stored block with BFINAL set. */
const FINAL_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);

function storedBlock(data: Buffer): Buffer {
  // BFINAL=0, BTYPE=00 (stored), then LEN and its one's complement; the stream is byte-aligned.
  const head = Buffer.alloc(5);
  head[0] = 0x00;
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

function split(text: Buffer, nonce: string): Buffer[] {
  const needle = Buffer.from(nonce);
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, from)) {
    parts.push(text.subarray(from, at));
    from = at + needle.length;
  }
  parts.push(text.subarray(from));
  return parts;
}

export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

export class PageCache {
  #entries = new Map<string, CachedPage>();

  constructor(private readonly now: () => number = Date.now) {}

  get size() {
    return this.#entries.size;
  }

  /** Keeps a rendered page whose nonce was `nonce` (it must appear in the CSP header). */
  store(
    key: string,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
    nonce: string,
    meta: { route?: string } = {},
  ): void {
    if (nonce.length < 16 || !(headers["content-security-policy"] ?? "").includes(nonce)) return;
    const parts = split(body, nonce);
    const deflated = parts.map((p) => deflateRawSync(p, { level: 9, finishFlush: constants.Z_SYNC_FLUSH }));
    const entry: CachedPage = {
      status,
      headers: Object.entries(headers)
        .filter(([k]) => k !== "content-length" && k !== "content-encoding")
        .map(([k, v]) => [k, v.split(nonce)]),
      parts,
      deflated,
      expires: this.now() + TTL_MS,
      route: meta.route,
    };
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, entry);
  }

  /** The kept page for `key` with a fresh nonce, in the encoding asked for; null if none is kept. */
  serve(key: string, encoding: "br" | "gzip" | null, acceptsGzip: boolean): PageAnswer | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    if (entry.expires <= this.now()) {
      this.#entries.delete(key);
      return null;
    }
    const nonce = newNonce();
    const nonceBytes = Buffer.from(nonce);
    const headers: Record<string, string> = {};
    for (const [k, v] of entry.headers) headers[k] = v.join(nonce);
    let body: Buffer;
    if (encoding === "gzip" || (encoding === "br" && acceptsGzip)) {
      // Kept segments, the nonce between them as stored blocks, the final block, CRC and size.
      const chunks: Buffer[] = [GZIP_HEADER];
      let crc = 0;
      const last = entry.parts.length - 1;
      entry.parts.forEach((part, i) => {
        chunks.push(entry.deflated[i]!);
        crc = crc32(part, crc);
        if (i < last) {
          chunks.push(storedBlock(nonceBytes));
          crc = crc32(nonceBytes, crc);
        }
      });
      const size = entry.parts.reduce((n, p) => n + p.length, 0) + last * nonceBytes.length;
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(crc >>> 0, 0);
      trailer.writeUInt32LE(size >>> 0, 4);
      chunks.push(FINAL_BLOCK, trailer);
      body = Buffer.concat(chunks);
      headers["content-encoding"] = "gzip";
    } else {
      body = Buffer.concat(entry.parts.flatMap((p, i) => (i === 0 ? [p] : [nonceBytes, p])));
      if (encoding === "br") {
        body = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
        headers["content-encoding"] = "br";
      }
    }
    headers["content-length"] = String(body.length);
    return { status: entry.status, headers, body, route: entry.route };
  }
}
