/**
 * The signed-in person's language as the outbox last wrote it: IndexedDB database
 * `carebridge-offline`, object store `session`, key `current`, field `locale`. Read only; null
 * when there is no such database, store or record (the database is never created from here).
 */
export const OFFLINE_DB = "carebridge-offline";
export const SESSION_STORE = "session";
export const SESSION_KEY = "current";

export function readSessionLocale(): Promise<string | null> {
  return new Promise((resolve) => {
    let open: IDBOpenDBRequest;
    try {
      open = indexedDB.open(OFFLINE_DB);
    } catch {
      resolve(null);
      return;
    }
    let created = false;
    // No database yet: opening would create an empty one at version 1; abort that instead.
    open.onupgradeneeded = () => {
      created = true;
      open.transaction?.abort();
    };
    open.onerror = () => resolve(null);
    open.onblocked = () => resolve(null);
    open.onsuccess = () => {
      const db = open.result;
      if (created || !db.objectStoreNames.contains(SESSION_STORE)) {
        db.close();
        resolve(null);
        return;
      }
      try {
        const get = db.transaction(SESSION_STORE, "readonly").objectStore(SESSION_STORE).get(SESSION_KEY);
        get.onsuccess = () => {
          const locale = (get.result as { locale?: unknown } | undefined)?.locale;
          db.close();
          resolve(typeof locale === "string" ? locale : null);
        };
        get.onerror = () => {
          db.close();
          resolve(null);
        };
      } catch {
        db.close();
        resolve(null);
      }
    };
  });
}
