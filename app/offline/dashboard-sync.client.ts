import { keepSnapshot, kick, rememberSession } from "./outbox.client";
import { OUTBOX_HEADERS } from "./send";
import type { OfflineSession } from "./types";

/**
 * What a signed-in health worker's or patient's dashboard does for offline use (decision 0063):
 * remembers who is signed in on this phone, keeps the lists the offline forms need (the centre's
 * queue; the family's profiles), sealed with the account's key, and sends what is waiting.
 */
export async function syncForOffline(session: OfflineSession): Promise<void> {
  await rememberSession(session);
  void kick();
  const url =
    session.role === "HealthWorker" ? "/api/v1/centre/patients?pageSize=100" : "/api/v1/family/members";
  try {
    const res = await fetch(url, { headers: OUTBOX_HEADERS, credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return;
    const body = (await res.json()) as { data?: unknown[] };
    if (Array.isArray(body.data))
      await keepSnapshot(session.role === "HealthWorker" ? "queue" : "profiles", body.data);
  } catch {
    /* offline: the last list stays */
  }
}

/** How many items wait for this account (the sign-out dialog says so). */
export async function waitingCount(): Promise<number> {
  const { listItems } = await import("./outbox.client");
  return (await listItems()).filter((i) => i.state !== "sent").length;
}

export { forgetSession } from "./outbox.client";
