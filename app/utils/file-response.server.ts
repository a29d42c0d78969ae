import { createReadableStreamFromReadable } from "@remix-run/node";
import type { Readable } from "node:stream";

/** A stored file as an HTTP response: real type, safe name, never cached or sniffed. */
export function fileResponse(
  file: { stream: Readable; mimeType: string; fileName: string; size: number },
  cache = "private, no-store",
) {
  const ascii = file.fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\;]/g, "_");
  return new Response(createReadableStreamFromReadable(file.stream), {
    status: 200,
    headers: {
      "Content-Type": file.mimeType,
      "Content-Length": String(file.size),
      "Content-Disposition": `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": cache,
      "Content-Security-Policy":
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; plugin-types application/pdf",
    },
  });
}
