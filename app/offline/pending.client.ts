/**
 * The password typed on /login, kept in this page's memory until the dashboard it leads to has
 * unlocked (or made) this phone's outbox key with it (decision 0072). It never leaves the page
 * except in the sign-in request, as before; it is never stored. A client-side navigation keeps
 * it (the second step of a two-step sign-in included); a full reload, or ten minutes, loses it.
 *
 * Deliberately tiny and free of imports: the public sign-in page loads it.
 */
const KEEP_MS = 10 * 60 * 1000;

let pending: { password: string; at: number } | null = null;

export function keepPasswordForOutbox(password: string): void {
  pending = password ? { password, at: Date.now() } : null;
}

/** The password once, if it was typed recently; forgotten either way. */
export function takePassword(): string | null {
  const p = pending;
  pending = null;
  return p && Date.now() - p.at < KEEP_MS ? p.password : null;
}
