/**
 * The password typed on /login, kept in this page's memory until the dashboard it leads to has
 * unlocked (or made) this phone's outbox key with it (decision 0072), with what the sign-in page
 * made from it before sending it (decision 0087): the id of the key it stored, prepared for the
 * account, and the key that wraps it. Neither leaves the page (the password only in the sign-in
 * request, as before); neither is stored. A client-side navigation keeps them (the second step of
 * a two-step sign-in included); a full page load, or ten minutes, loses them — the prepared key,
 * stored wrapped, is then taken by her password on the offline screen.
 *
 * Deliberately tiny and free of imports: the public sign-in page loads it.
 */
const KEEP_MS = 10 * 60 * 1000;

/** What the sign-in page prepared: the stored key's id, and in memory the key that wraps it. */
export type Prepared = { id: string; kek: CryptoKey; salt: ArrayBuffer };

export type Typed = { password: string; prepared: Promise<Prepared | null> | null };

let pending: (Typed & { at: number }) | null = null;

export function keepPasswordForOutbox(
  password: string,
  prepared: Promise<Prepared | null> | null = null,
): void {
  pending = password ? { password, prepared, at: Date.now() } : null;
}

/** The password (and what was prepared from it) once, if it was typed recently; forgotten either way. */
export function takePassword(): Typed | null {
  const p = pending;
  pending = null;
  return p && Date.now() - p.at < KEEP_MS ? { password: p.password, prepared: p.prepared } : null;
}
