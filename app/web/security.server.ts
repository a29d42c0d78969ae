import { config } from "~/config.server";

/**
 * Where the microphone may be asked for: the signed-in dashboard, whose screens record voice notes.
 * A document keeps the policy of its first load while the app navigates inside it, so a screen-level
 * rule would fail whoever reached a recording screen from another dashboard screen.
 */
const RECORDING_SCREENS = /^\/dashboard(?:\/|$)/;

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
        // A voice note is listened to before it is sent, from the recording in memory (decision 0037).
        "media-src 'self' blob:",
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
  // The microphone only inside the dashboard (voice notes, decision 0037), for our own origin.
  const mic = RECORDING_SCREENS.test(new URL(request.url).pathname) ? "(self)" : "()";
  headers.set("Permissions-Policy", `camera=(), microphone=${mic}, geolocation=(), payment=()`);
  if (config().appUrl.startsWith("https://") || new URL(request.url).protocol === "https:") {
    headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  }
}
