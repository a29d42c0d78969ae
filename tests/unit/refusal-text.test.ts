import { describe, expect, it, vi } from "vitest";
import { catalogueKeys, catalogueValue } from "../helpers/catalogue";
import { DomainError } from "~/domain/platform/errors";
import { getT } from "~/i18n/i18n.server";
import en from "~/i18n/locales/en";
import { errorResponse } from "~/web/api.server";
import { formFailure } from "~/web/screen.server";

/*
 * Decision 0059: no placeholder ever reaches a person. Every refusal the API or a screen sends
 * is worded in one place (refusal-text.server.ts): its message and each field error, with the
 * refusal's values. This walks every catalogue string with a placeholder, in all four languages,
 * through the API's error body and a form's answer — once with its values (each appears, none is
 * left) and once without (a key sent without its values still shows no placeholder).
 */

const PLACEHOLDER = /\{\{[^}]*\}\}/;
const withPlaceholders = catalogueKeys(en).filter((k) => PLACEHOLDER.test(String(catalogueValue(en, k))));
const namesOf = (key: string) =>
  [...String(catalogueValue(en, key)).matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)].map((m) => m[1]);

async function sent(key: string, t: Awaited<ReturnType<typeof getT>>, values?: Record<string, string>) {
  const err = () =>
    new DomainError("invalid", key, { fieldErrors: { field: [key] }, ...(values ? { values } : {}) });
  const apiBody = await errorResponse(err(), t).text();
  const form = formFailure(err(), t, (o) => ({
    status: "error",
    error: { "": o.formErrors ?? [], ...(o.fieldErrors ?? {}) },
  }));
  return `${apiBody}\n${JSON.stringify(form.data)}`;
}

describe("every refusal says what it means, never a placeholder", () => {
  it("walks every catalogue string with a placeholder, in all four languages", async () => {
    expect(withPlaceholders.length).toBeGreaterThan(100);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {}); // the log names each key sent without values
    const left: string[] = [];
    for (const lang of ["en", "hi", "bn", "ta"] as const) {
      const t = await getT(lang);
      for (const key of withPlaceholders) {
        const values = Object.fromEntries(namesOf(key).map((n) => [n, `«${n}»`]));
        const given = await sent(key, t, values);
        if (PLACEHOLDER.test(given)) left.push(`${lang} ${key} (with its values)`);
        for (const n of namesOf(key))
          if (!given.includes(`«${n}»`)) left.push(`${lang} ${key}: the value of ${n} is not shown`);
        if (PLACEHOLDER.test(await sent(key, t))) left.push(`${lang} ${key} (without values)`);
      }
    }
    expect(left).toEqual([]);
    // A key sent without its values is logged by name (the first of them, for one).
    const first = `"key":"${withPlaceholders[0]}"`;
    expect(logged.mock.calls.some(([line]) => String(line).includes(first))).toBe(true);
    logged.mockRestore();
  });
});
