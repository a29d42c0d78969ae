/**
 * Registers the service worker (/sw.js, decision 0066). Loaded only by the dashboard of a signed-in
 * Patient or HealthWorker, as a dynamic import, so public, expert and admin pages never fetch it.
 *
 * A new version installs and waits; `onWaiting` gets a function that lets it take over (the page
 * posts `{type: "SKIP_WAITING"}`) and reloads the page once the new worker controls it.
 */
export const SW_URL = "/sw.js";

export async function registerServiceWorker(
  onWaiting: (apply: () => void) => void,
): Promise<ServiceWorkerRegistration | null> {
  if (!("serviceWorker" in navigator)) return null;
  const container = navigator.serviceWorker;
  let registration: ServiceWorkerRegistration;
  try {
    registration = await container.register(SW_URL, { scope: "/", updateViaCache: "none" });
  } catch {
    return null; // a private window or a browser that refuses: the app works as before
  }
  const offer = (worker: ServiceWorker) => {
    // Only an update waits: the first worker has no page in control and activates at once.
    if (!container.controller) return;
    onWaiting(() => {
      let reloaded = false;
      container.addEventListener("controllerchange", () => {
        if (reloaded) return;
        reloaded = true;
        window.location.reload();
      });
      worker.postMessage({ type: "SKIP_WAITING" });
    });
  };
  // A new version found by this page's navigation may be waiting already, or still installing.
  const watch = (installing: ServiceWorker | null) => {
    installing?.addEventListener("statechange", () => {
      if (installing.state === "installed" && registration.waiting === installing) offer(installing);
    });
  };
  if (registration.waiting) offer(registration.waiting);
  else watch(registration.installing);
  registration.addEventListener("updatefound", () => watch(registration.installing));
  return registration;
}
