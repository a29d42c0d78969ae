import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import en from "../../app/i18n/locales/en";
import { moduleGraph, OUTPUT, render, routeKeys, routes } from "../../scripts/i18n-route-keys";

/**
 * The browser gets only the strings its routes name (app/i18n/route-keys.generated.json): a screen
 * whose code changed without the list would show raw keys until the missing section arrives, and
 * the offline screen, kept by the service worker, never gets them.
 */

/** Every path of the English catalogue, leaves and subtrees; `x_one` also names `x` (plurals, contexts). */
function cataloguePaths(): Set<string> {
  const out = new Set<string>();
  const walk = (tree: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(tree)) {
      const p = `${prefix}${k}`;
      out.add(p);
      out.add(p.replace(/_[a-z]+$/, ""));
      if (v && typeof v === "object") walk(v as Record<string, unknown>, `${p}.`);
    }
  };
  walk(en as unknown as Record<string, unknown>, "");
  return out;
}

/** Every string literal in a file, read independently of the extractor's key pattern. */
function literals(source: string): string[] {
  const out: string[] = [];
  for (const re of [/"([^"\n\\]*)"/g, /'([^'\n\\]*)'/g, /`([^`$\\]*)(?:`|\$\{)/g])
    for (const m of source.matchAll(re)) out.push(m[1]);
  return out;
}

describe("strings per route", () => {
  it("the route key list is up to date (npm run i18n:routes writes it)", async () => {
    const map = await routeKeys();
    expect(readFileSync(OUTPUT, "utf8")).toBe(await render(map));
  });

  it("finds the keys a screen names, and the root's are not repeated per route", async () => {
    const map = await routeKeys();
    expect(map.root).toContain("nav.login");
    expect(map["routes/login"]).toContain("accounts.loginTitle");
    // The field components' keys come through their imports.
    expect(map["routes/login"]).toContain("accounts.showPassword");
    expect(map["routes/login"]).not.toContain("nav.login");
    // A template names a whole subtree.
    expect(Object.values(map).flat()).toContain("registration.sexes");
    // The home page knows nothing of the dashboard's strings.
    expect(map["routes/_index"].some((k) => k.startsWith("reports."))).toBe(false);
  });

  it("ships every catalogue key a route's modules name, whatever its characters (the offline screen too)", async () => {
    const map = await routeKeys();
    const paths = cataloguePaths();
    // Keys with a '-' in a segment, drawn on the offline screen without a connection.
    for (const key of ["offline.tabs.follow-up", "offline.states.needs-you", "offline.kinds.follow-up"])
      expect(map["routes/offline"]).toContain(key);
    const missing: string[] = [];
    for (const [id, file] of routes()) {
      if (!map[id]) continue; // a resource route renders nothing
      const shipped = new Set([...map.root, ...map[id]]);
      const covered = (key: string) =>
        key.split(".").some((_, i, parts) => shipped.has(parts.slice(0, i + 1).join(".")));
      for (const f of moduleGraph(file))
        for (const lit of literals(readFileSync(f, "utf8"))) {
          const key = lit.replace(/\.$/, "");
          if (key.includes(".") && paths.has(key) && !covered(key)) missing.push(`${id}: ${key}`);
        }
    }
    expect([...new Set(missing)]).toEqual([]);
  });
});
