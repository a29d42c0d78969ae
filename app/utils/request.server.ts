/** The client address a reverse proxy reported, for the audit trail (null when direct). */
export function clientIp(request: Request): string | null {
  return request.headers.get("X-Forwarded-For")?.split(",")[0]?.trim().slice(0, 64) || null;
}
