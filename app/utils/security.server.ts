import { config } from "~/config.server";

/** Security headers for every HTML and data response. */
export function securityHeaders(headers: Headers, request: Request, nonce?: string) {
  // From the validated config (NODE_ENV, default production): `npm start` sets no NODE_ENV.
  const isProd = config().nodeEnv === "production";
  if (nonce && isProd) {
    headers.set(
      "Content-Security-Policy",
      [
        "default-src 'self'",
        `script-src 'self' 'nonce-${nonce}'`,
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join("; "),
    );
  }
  headers.set("X-Content-Type-Options", "nosniff");
  // A page whose address is a secret (a sharing link, /s/…) asks for a stricter policy: keep it.
  const policy = headers.get("Referrer-Policy");
  if (policy !== "no-referrer" && policy !== "same-origin")
    headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");
  if (config().appUrl.startsWith("https://") || new URL(request.url).protocol === "https:") {
    headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  }
}
