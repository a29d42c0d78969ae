import { describe, expect, it } from "vitest";
import { catalogueValue } from "../helpers/catalogue";
import { AUDIT_ACTION_GROUPS, AUDIT_ACTIONS, AUDIT_AREAS } from "~/components/audit/actions";
import { PATIENT_ACTIONS } from "~/domain/platform/index.server";
import { getT } from "~/i18n/i18n.server";
import bn from "~/i18n/locales/bn";
import en from "~/i18n/locales/en";
import hi from "~/i18n/locales/hi";
import ta from "~/i18n/locales/ta";

/*
 * The admin's audit log names every recorded action in the admin's language (the map is typed by
 * the domain's AuditAction, so tsc refuses an action without a label): here, each label and each
 * area of the filter reads in all four languages, as a short phrase with nothing left to fill, and
 * no two actions read the same (the filter offers them side by side).
 */

const catalogues = { en, hi, bn, ta } as const;
const labels = Object.values(AUDIT_ACTIONS);
const areas = Object.values(AUDIT_AREAS);

describe("the audit log's action labels", () => {
  for (const [lang, catalogue] of Object.entries(catalogues)) {
    it(`${lang}: every action and area has its own label, with no place to fill`, async () => {
      const t = await getT(lang as keyof typeof catalogues);
      const read = (key: string) => {
        expect(typeof catalogueValue(catalogue, key), `${lang} ${key}`).toBe("string");
        const text = t(key);
        expect(text, `${lang} ${key}`).not.toBe(key);
        expect(text, `${lang} ${key}`).not.toMatch(/\{\{|[a-z]_[a-z]|\b(patient|centre|account)\./);
        if (lang !== "en") expect(text, `${lang} ${key}`).not.toBe(catalogueValue(en, key));
        return text;
      };
      const actionTexts = labels.map(read);
      expect(new Set(actionTexts).size, `${lang}: two actions read the same`).toBe(actionTexts.length);
      const areaTexts = areas.map(read);
      expect(new Set(areaTexts).size).toBe(areaTexts.length);
    });
  }

  it("the filter offers every action once, in the group of its area", () => {
    const offered = AUDIT_ACTION_GROUPS.flatMap((g) => g.actions.map(([action]) => action));
    expect([...offered].sort()).toEqual(Object.keys(AUDIT_ACTIONS).sort());
    for (const g of AUDIT_ACTION_GROUPS) {
      expect(g.actions.length, g.area).toBeGreaterThan(0);
      for (const [action] of g.actions) expect(action.split(".")[0]).toBe(g.area);
    }
    // A person's trail and the admin's log name the same actions on a profile.
    for (const action of PATIENT_ACTIONS) expect(AUDIT_ACTIONS[action], action).toBeTruthy();
  });
});
