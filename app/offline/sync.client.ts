/**
 * Asks the service worker to send the outbox when the connection is back (Background Sync tag
 * `outbox`, answered by app/sw/sw.ts with sendOutbox()). False where there is no worker in control
 * or no Background Sync (then the page sends it itself when it is online).
 */
type SyncRegistration = ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } };

export async function requestOutboxSync(): Promise<boolean> {
  if (!("serviceWorker" in navigator) || !navigator.serviceWorker.controller) return false;
  const registration = (await navigator.serviceWorker.ready) as SyncRegistration;
  if (!registration.sync) return false;
  try {
    await registration.sync.register("outbox");
    return true;
  } catch {
    return false;
  }
}
