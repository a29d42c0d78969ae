import { createReadableStreamFromReadable } from "@remix-run/node";
import type { Readable } from "node:stream";

/**
 * Content-Disposition for a stored name: a quoted ASCII fallback (quotes, backslashes and
 * non-ASCII replaced; `;` and `=` are safe inside the quotes) and the exact name as RFC 8187
 * `filename*` (every byte outside attr-char percent-encoded, `'()*!` included).
 */
export function contentDisposition(fileName: string, type: "inline" | "attachment" = "inline") {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(
    /['()*!]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * Headers that keep a served file out of other sites' frames — our own pages may frame it (the
 * expert reads the report beside the opinion form) — and, for images, every active content away
 * (a PDF cannot be sandboxed: Chromium's viewer refuses to run in a sandbox).
 */
export function fileFrameHeaders(mimeType: string, opts: { ownFrames?: boolean } = {}) {
  const sandbox = mimeType === "application/pdf" ? "" : "; sandbox";
  const ancestors = opts.ownFrames ? "'self'" : "'none'";
  return {
    "Content-Security-Policy": `default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors ${ancestors}${sandbox}`,
    "X-Frame-Options": opts.ownFrames ? "SAMEORIGIN" : "DENY",
    "Cross-Origin-Resource-Policy": "same-origin",
  };
}

/**
 * A Node stream as a response body. @remix-run/node's pump, when the response is cancelled (the
 * client went away before the end), destroys the stream with the reason and then removes its own
 * error listener, so the stream emits that error with no listener and the process dies. The
 * listener here keeps that error harmless; errors before a cancel still reach the response.
 */
export function responseBody(stream: Readable) {
  stream.on("error", () => {});
  return createReadableStreamFromReadable(stream);
}

/** A stored file as an HTTP response: real type, safe name, never cached or sniffed. */
export function fileResponse(
  file: { stream: Readable; mimeType: string; fileName: string; size: number },
  cache = "private, no-store",
  opts: { ownFrames?: boolean } = {},
) {
  return new Response(responseBody(file.stream), {
    status: 200,
    headers: {
      "Content-Type": file.mimeType,
      "Content-Length": String(file.size),
      "Content-Disposition": contentDisposition(file.fileName),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": cache,
      ...fileFrameHeaders(file.mimeType, opts),
    },
  });
}

/**
 * One byte range of a `size`-byte file from a `Range` header: null when there is none (or it is
 * not a single bytes range, which we answer whole as RFC 9110 allows), "unsatisfiable" when it
 * lies beyond the end.
 */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | "unsatisfiable" | null {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header ?? "");
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    // A suffix: the last n bytes.
    const n = Number(m[2]);
    if (n === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/** Bytes as a response body in 64 KB views of them: the buffer (perhaps shared) is never copied. */
function viewsOf(bytes: Buffer): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const end = Math.min(at + 64 * 1024, bytes.length);
      controller.enqueue(new Uint8Array(bytes.buffer, bytes.byteOffset + at, end - at));
      at = end;
    },
  });
}

/**
 * A small stored file held in memory (a voice note, perhaps shared with other requests: it is only
 * read) as a response honouring a single `Range` (206 with Content-Range; 416 with an empty body
 * when unsatisfiable), so a phone's player can seek. Never cached.
 */
export function rangeResponse(
  request: Request,
  file: { bytes: Buffer; mimeType: string; fileName: string },
  cache = "private, no-store",
) {
  const size = file.bytes.length;
  const base = {
    "Content-Type": file.mimeType,
    "Accept-Ranges": "bytes",
    "Content-Disposition": contentDisposition(file.fileName),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": cache,
    ...fileFrameHeaders(file.mimeType, { ownFrames: true }),
  };
  const range = parseRange(request.headers.get("Range"), size);
  if (range === "unsatisfiable") {
    return new Response(null, { status: 416, headers: { ...base, "Content-Range": `bytes */${size}` } });
  }
  const body = range ? file.bytes.subarray(range.start, range.end + 1) : file.bytes;
  return new Response(request.method === "HEAD" ? null : viewsOf(body), {
    status: range ? 206 : 200,
    headers: {
      ...base,
      "Content-Length": String(body.length),
      ...(range ? { "Content-Range": `bytes ${range.start}-${range.end}/${size}` } : {}),
    },
  });
}
