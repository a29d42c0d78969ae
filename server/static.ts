import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/**
 * The built client files (fingerprinted /assets/* and the copies of public/), read once at
 * start-up into memory, their compressed forms at the first request for each. Serving one is a
 * map lookup: no request ever stat()s the disk, and API/health paths never look here at all.
 */
export type StaticFile = {
  type: string;
  cacheControl: string;
  body: Buffer;
  gzip?: Buffer;
  br?: Buffer;
};

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
  ".map": "application/json; charset=utf-8",
};
const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".svg", ".json", ".txt", ".map"]);

export const IMMUTABLE = "public, max-age=31536000, immutable";
export const SHORT = "public, max-age=3600";
/**
 * The service worker's script: asked again at every check for an update, so a deploy reaches the
 * browser at its next visit (decision 0066), never an hour later from a cache.
 */
export const NO_CACHE = "no-cache";
const REVALIDATED = new Set(["/sw.js"]);

function walk(dir: string, base = dir, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, base, out);
    else if (entry.isFile()) out.push(path.relative(base, full));
  }
  return out;
}

export function loadStaticFiles(clientDir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const cacheDir = path.join(path.dirname(clientDir), ".compressed");
  for (const rel of walk(clientDir)) {
    const ext = path.extname(rel).toLowerCase();
    if (ext === ".map") continue; // source maps are not served
    const url = "/" + rel.split(path.sep).join("/");
    const body = readFileSync(path.join(clientDir, rel));
    const file: StaticFile = {
      type: TYPES[ext] ?? "application/octet-stream",
      cacheControl: url.startsWith("/assets/") ? IMMUTABLE : REVALIDATED.has(url) ? NO_CACHE : SHORT,
      body,
    };
    if (COMPRESSIBLE.has(ext) && body.length > 1024) compressedWhenAsked(file, cacheDir);
    files.set(url, file);
  }
  return files;
}

/**
 * The file's compressed forms, read (or made) the first time a request looks at them, not at
 * start-up: hashing every file and reading both forms of each took 30–50 ms of every start
 * (decision 0123). Each is read once, then kept.
 */
function compressedWhenAsked(file: StaticFile, cacheDir: string) {
  const { body } = file;
  let key: string | undefined;
  const forms = {
    gzip: () => gzipSync(body, { level: 9 }),
    br: () =>
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
  };
  for (const [form, make] of Object.entries(forms)) {
    let kept: Buffer | undefined;
    Object.defineProperty(file, form, {
      enumerable: true,
      get: () => {
        key ??= createHash("sha256").update(body).digest("hex");
        return (kept ??= compressedOnce(cacheDir, `${key}.${form === "gzip" ? "gz" : "br"}`, make));
      },
    });
  }
}

/**
 * A compressed form made once per build and kept beside it (`<build>/.compressed/<sha-256>.gz|br`,
 * named by the content, so a rebuilt file never finds a stale one): compressing every asset at
 * level 9 took about a second of CPU at each start of each worker. A start that cannot write there
 * (a read-only build) compresses in memory as before; two workers starting at once each write a
 * temporary file and rename it, so neither reads a half-written one.
 */
function compressedOnce(dir: string, name: string, make: () => Buffer): Buffer {
  const file = path.join(dir, name);
  try {
    return readFileSync(file);
  } catch {
    /* not made yet */
  }
  const out = make();
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, out);
    renameSync(tmp, file);
  } catch {
    /* a read-only build: serve from memory */
  }
  return out;
}

/** The best encoding this client accepts: br, then gzip, else none. */
export function pickEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  if (!acceptEncoding) return null;
  const ae = acceptEncoding.toLowerCase();
  if (/\bbr\b(?!;q=0(\.0*)?\b)/.test(ae)) return "br";
  if (/\bgzip\b(?!;q=0(\.0*)?\b)/.test(ae)) return "gzip";
  return null;
}
