/**
 * Who is asking, as a plain value: resolved once by the server (server/client.ts) from the
 * socket and, behind trusted proxies only, X-Forwarded-For. The domain never sees a Request.
 */
export type Client = {
  /** The client's IP address (IPv4 or IPv6, normalised), or "unknown" when no server resolved it. */
  ip: string;
  userAgent: string | null;
};

export const UNKNOWN_CLIENT: Client = Object.freeze({ ip: "unknown", userAgent: null });
