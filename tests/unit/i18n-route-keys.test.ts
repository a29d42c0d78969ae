import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OUTPUT, render, routeKeys } from "../../scripts/i18n-route-keys";

/**
 * The browser gets only the strings its routes name (app/i18n/route-keys.generated.json): a screen
 * whose code changed without the list would show raw keys until the missing section arrives.
 */
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
});
