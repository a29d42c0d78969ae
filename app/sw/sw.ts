/**
 * CareBridge's service worker (decision 0066), bundled by scripts/build-sw.mjs into /sw.js.
 *
 * - Precaches the app shell: the built /assets/* (JS, CSS, fonts) and the offline screen
 *   `/offline?lng=<l>` in the four languages, fetched without credentials so nothing personal is
 *   ever stored. /assets/* are then answered cache-first from that precache.
 * - A navigation to /dashboard/* goes to the network; only when the network fails is it answered
 *   with a redirect to the precached offline screen in the person's language.
 * - Nothing else is cached: API responses, dashboard pages and data, files, anything a cookie
 *   shapes goes to the network untouched.
 * - A new version installs and waits until the page says `{type: "SKIP_WAITING"}`; IndexedDB is
 *   never touched except to read the locale, and old precaches go with cleanupOutdatedCaches.
 * - Background Sync `outbox`: sends the outbox (app/offline/send.ts) with the account's key a page
 *   handed over after unlocking it (`{type: "UNLOCK"}`, held in this worker's memory only); a
 *   restarted worker has none and sends nothing until a page unlocks again. A sign-out post
 *   forgets who is signed in here, the synced lists and the key (decisions 0063, 0072).
 */
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import { sendOutbox } from "~/offline/send";
import { forgetSignedIn } from "~/offline/keys";
import { holdKey, lock } from "~/offline/store";
import { readSessionLocale } from "./locale";

type PrecacheEntry = { url: string; revision: string | null };
/** Replaced at build time by the list of built files (scripts/build-sw.mjs). */
declare const __PRECACHE_MANIFEST__: PrecacheEntry[];

type ExtendableEvent = Event & { waitUntil(promise: Promise<unknown>): void };
type SyncEvent = ExtendableEvent & { tag: string };
type MessageEventLike = ExtendableEvent & { data: unknown };
type ServiceWorkerScope = {
  skipWaiting(): Promise<void>;
  addEventListener(type: "sync", listener: (event: SyncEvent) => void): void;
  addEventListener(type: "message", listener: (event: MessageEventLike) => void): void;
};
const scope = self as unknown as ServiceWorkerScope;

addPlugins([
  {
    // The precache's own fetches carry no cookie, so no page in it can hold anyone's data.
    requestWillFetch: async ({ request }: { request: Request }) =>
      new Request(request.url, { credentials: "omit", cache: request.cache, integrity: request.integrity }),
    // Its entries are one URL each, drawn for nobody: looked up by the URL alone. Workbox's key
    // carries the asking request's headers, and the pages' `Vary: Cookie, Accept-Language` would
    // then miss for a navigation that sends Accept-Language.
    cacheKeyWillBeUsed: async ({ request }: { request: Request }) => new Request(request.url),
  },
]);
precacheAndRoute(__PRECACHE_MANIFEST__, { ignoreURLParametersMatching: [/^utm_/] });
cleanupOutdatedCaches();

const LOCALES = new Set(["en", "hi", "bn", "ta"]);

registerRoute(
  ({ request, url }) =>
    request.mode === "navigate" &&
    url.origin === location.origin &&
    /^\/dashboard(?:\/|$)/.test(url.pathname),
  async ({ request }) => {
    try {
      return await fetch(request);
    } catch {
      const found = await readSessionLocale();
      const locale = found && LOCALES.has(found) ? found : "en";
      return Response.redirect(new URL(`/offline?lng=${locale}`, location.origin).href, 302);
    }
  },
);

// Signing out (a form post, with or without the page's script): nobody is signed in on this phone
// any more, so no outbox is shown or sent until someone signs in; the items stay sealed (0063).
registerRoute(
  ({ url }) => url.origin === location.origin && /^\/logout(?:\.data)?$/.test(url.pathname),
  async ({ request }) => {
    await forgetSignedIn().catch(() => {});
    return fetch(request);
  },
  "POST",
);

scope.addEventListener("message", (event) => {
  const data = event.data as { type?: unknown; accountId?: unknown; key?: unknown } | null;
  if (data && data.type === "SKIP_WAITING") void scope.skipWaiting();
  // A page of this origin unlocked the outbox with the person's password (decision 0072).
  if (data?.type === "UNLOCK" && typeof data.accountId === "string" && data.key instanceof CryptoKey)
    holdKey(data.accountId, data.key);
  if (data?.type === "LOCK") lock();
});

scope.addEventListener("sync", (event) => {
  if (event.tag === "outbox") event.waitUntil(sendOutbox());
});
