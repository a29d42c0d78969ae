import { isDomainError, HTTP_STATUS } from "~/domain/platform/index.server";

/**
 * The voice provider's requests (decision 0080): form posts (or a query, for GETs) in, XML or a
 * WAV out. A refusal is a bare status with a short text — the caller is a provider, not a person.
 */
export async function voiceParams(request: Request): Promise<URLSearchParams> {
  const url = new URL(request.url);
  const params = new URLSearchParams(url.search);
  if (request.method !== "GET" && request.method !== "HEAD") {
    const type = request.headers.get("Content-Type") ?? "";
    if (type.includes("application/x-www-form-urlencoded")) {
      const body = await request.text();
      if (body.length > 16_384) throw new Response("Too large", { status: 413 });
      for (const [k, v] of new URLSearchParams(body)) params.set(k, v);
    } else if (type.includes("application/json")) {
      const body = await request.text();
      if (body.length > 16_384) throw new Response("Too large", { status: 413 });
      try {
        for (const [k, v] of Object.entries(JSON.parse(body) as Record<string, unknown>))
          if (typeof v === "string" || typeof v === "number") params.set(k, String(v));
      } catch {
        throw new Response("Bad JSON", { status: 400 });
      }
    }
  }
  return params;
}

export async function voiceAnswer(run: () => Promise<string | Buffer | void>): Promise<Response> {
  try {
    const out = await run();
    if (out === undefined) return new Response(null, { status: 204 });
    if (typeof out === "string")
      return new Response(out, {
        headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "no-store" },
      });
    return new Response(new Uint8Array(out), {
      headers: {
        "Content-Type": "audio/wav",
        "Content-Length": String(out.length),
        "Cache-Control": "no-store",
      },
    });
  } catch (err) {
    if (err instanceof Response) return err;
    if (isDomainError(err)) return new Response(err.code, { status: HTTP_STATUS[err.code] });
    throw err;
  }
}
