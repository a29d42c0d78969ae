/** Placeholder: the lead's outbox sender replaces this module (issue 45). Called by the service worker's `sync` event. */
export async function sendOutbox(): Promise<void> {}
