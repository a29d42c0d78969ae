import { forgetOthers, keepSnapshot, kick, rememberSession, unlockAtSignIn } from "./outbox.client";
import { currentSession, itemsOf } from "./store";
import { OUTBOX_HEADERS } from "./send";
import type { OfflineSession } from "./types";

/**
 * What a signed-in health worker's or patient's dashboard does for offline use (decision 0063):
 * remembers who is signed in on this phone, keeps the lists the offline forms need (the centre's
 * queue; the family's profiles), sealed with the account's key, and sends what is waiting.
 */
export async function syncForOffline(session: OfflineSession): Promise<{ locked: number }> {
  // Right after a password sign-in, the typed password unlocks (or makes) the key (decision 0072),
  // before this phone names her as signed in.
  await forgetOthers(session.accountId);
  const open = await unlockAtSignIn(session.accountId);
  await rememberSession(session);
  if (!open) return { locked: (await itemsOf(session.accountId)).filter((i) => i.state !== "sent").length };
  void kick();
  await keepLists(session);
  return { locked: 0 };
}

/** The lists the offline forms offer, fetched again while online (the last ones stay otherwise). */
export async function keepLists(session: OfflineSession): Promise<boolean> {
  const url =
    session.role === "HealthWorker" ? "/api/v1/centre/patients?pageSize=100" : "/api/v1/family/members";
  try {
    const res = await fetch(url, { headers: OUTBOX_HEADERS, credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return false;
    const body = (await res.json()) as { data?: unknown[] };
    if (!Array.isArray(body.data)) return false;
    await keepSnapshot(session.role === "HealthWorker" ? "queue" : "profiles", body.data);
    return true;
  } catch {
    return false; // offline: the last list stays
  }
}

/** How many items wait for this account (the sign-out dialog says so). */
export async function waitingCount(): Promise<number> {
  const session = await currentSession();
  if (!session) return 0;
  return (await itemsOf(session.accountId)).filter((i) => i.state !== "sent").length;
}

export { forgetSession } from "./outbox.client";

/**
 * Whether the browser's session is still the account this phone's outbox belongs to: "none" (signed
 * out, or the session ended), "other" (someone else signed in), "same", or "unknown" (no answer).
 */
export async function whoIsSignedIn(accountId: string): Promise<"same" | "other" | "none" | "unknown"> {
  try {
    const res = await fetch("/api/v1/profile/get-user-details", {
      headers: OUTBOX_HEADERS,
      credentials: "same-origin",
      cache: "no-store",
    });
    if (res.status === 401) return "none";
    if (!res.ok) return "unknown";
    const body = (await res.json()) as { data?: { _id?: string } };
    return body.data?._id === accountId ? "same" : "other";
  } catch {
    return "unknown";
  }
}
