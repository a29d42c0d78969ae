import { data } from "@remix-run/node";
import {
  addValue,
  checkValue,
  confirmableInBulk,
  confirmValues,
  labReview,
  labWordsFor,
  readWithDoubt,
  testName,
} from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { CATALOGUE, displayUnit, printedParts, storedMeasure } from "~/domain/records/labs";
import { screenFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { ReviewScreen } from "./claim.server";

/**
 * "Values read from this report" (decisions 0084, 0090): for the expert holding the report, the
 * reading's state, every value with its status, its doubt and the page to show it on, the values
 * one step confirms; the catalogue to add one from (when asked for: `?add=1`). Each test is named in
 * the screen's language where it has a name there, and the flags are said as the clinic corrected
 * them (decision 0108).
 */
export async function labsSection(
  actor: Actor,
  report: { _id: string; reportUrl: string; resourceType: string },
  selected: string | null,
  adding: boolean,
  locale: string,
) {
  const review = await labReview(actor, report._id);
  if (!review) return null;
  const words = await labWordsFor(locale);
  const named = <V extends { loinc: string; name: string }>(v: V) => testName(words, v.loinc, v.name, locale);
  const pick =
    review.values.find((v) => v._id === selected && v.status !== "removed" && v.page && v.box) ?? null;
  return {
    ...review,
    // The unit as printed (or as the expert typed it), else the analyte's unit as people read it;
    // where the value stands against its printed range: its measure's judgement (decision 0088).
    values: review.values.map((v) => ({
      ...v,
      name: named(v),
      shownUnit: v.valueText !== null ? "" : (v.printedUnit ?? displayUnit(v.unit)),
      judgement: storedMeasure(v).judgement,
      doubt: readWithDoubt(v),
      // A range printed in parts (by sex, age or category) is shown whole, a part a line, with the
      // part that applies to this patient marked, or said that none could be chosen (decision 0105).
      parts: v.valueText === null ? printedParts(v.rangeText) : null,
    })),
    // "Confirm all": the unchecked values read without doubt (decision 0090), as the form sends them.
    bulk: review.values.filter(confirmableInBulk).map((v) => v._id),
    // Unchecked values read with doubt: each confirmed on its own.
    doubtful: review.values.filter((v) => v.status === "read" && readWithDoubt(v)).length,
    // The highlight: the value's page (a PDF's page rendered; a photo is its own page) and its box.
    preview: pick
      ? {
          valueId: pick._id,
          name: named(pick),
          page: pick.page!,
          box: pick.box!,
          src:
            report.resourceType === "raw"
              ? `/api/v1/report/${report._id}/pages/${pick.page}`
              : report.reportUrl,
        }
      : null,
    // The catalogue (95 tests) only when the expert asks to add one: every review page stays light.
    catalogue: !adding
      ? null
      : CATALOGUE.map((a) => ({
          loinc: a.loinc,
          name: named(a),
          // As people read them ("×10³/µL"); the unit field takes these as typed.
          units: [a.unit, ...a.alt.map((u) => u.ucum)].map(displayUnit).filter(Boolean),
        })),
    // The clinic's corrections of the sentences the section says (its flags).
    words: words.sentences,
  };
}

const text = (form: FormData, key: string) => {
  const v = form.get(key);
  return typeof v === "string" ? v : undefined;
};

export type LabIntent = "lab-check" | "lab-add" | "lab-confirm-all";

/** What each step did, in the words of the toast. */
const DONE = {
  confirm: "labs.checked",
  correct: "labs.checked",
  remove: "labs.removedOne",
  restore: "labs.restored",
};

/**
 * Confirm, correct, remove (or undo a removal of) one value, add one, or confirm every unchecked
 * value shown, each in one step; a refused form keeps its input. A page with its script asks for
 * the answer as data (`script=1`: the controls stay where they are, decision 0090); without it, the
 * answer is the screen again (post/redirect/get) at the value's own row.
 */
export async function labAction(intent: LabIntent, form: FormData, screen: ReviewScreen, url: URL) {
  const { actor, t, reportId } = screen;
  const valueId = text(form, "valueId") ?? "";
  const action = text(form, "action");
  const fields = {
    value: text(form, "value"),
    unit: text(form, "unit"),
    result: text(form, "result"),
    range: text(form, "range"),
  };
  let done: string;
  let anchor = `lab-${encodeURIComponent(valueId)}`;
  try {
    if (intent === "lab-confirm-all") {
      const ids = form.getAll("valueId").filter((v): v is string => typeof v === "string");
      const r = await confirmValues(actor, reportId, { valueIds: ids });
      done = t("labs.confirmedCount", { count: r.confirmed.length });
      anchor = "labs";
    } else if (intent === "lab-add") {
      const added = await addValue(actor, reportId, { loinc: text(form, "loinc"), ...fields });
      anchor = `lab-${encodeURIComponent(added._id)}`;
      done = t("labs.checked");
    } else {
      await checkValue(
        actor,
        reportId,
        valueId,
        action === "correct" ? { action: "correct", ...fields } : { action },
      );
      done = t(DONE[action as keyof typeof DONE] ?? "labs.checked");
    }
  } catch (err) {
    const f = screenFailure(err, t);
    return data(
      {
        lab: {
          target: intent === "lab-add" ? "add" : intent === "lab-confirm-all" ? "all" : valueId,
          message: f.message,
          fieldErrors: f.fieldErrors ?? {},
          typed: { ...fields, loinc: text(form, "loinc") },
        },
        done: null,
      },
      { status: f.status, headers: f.headers },
    );
  }
  if (text(form, "script") === "1")
    return { lab: null, done: { message: done, intent, action: action ?? null } };
  // Back where the expert was (the page she had shown, the catalogue if open), at the row she acted on.
  const keep = new URLSearchParams();
  for (const k of ["value", "add"]) {
    const v = url.searchParams.get(k);
    if (v) keep.set(k, v);
  }
  const q = keep.size ? `?${keep}` : "";
  return redirectWithSuccess(`/dashboard/add-review/${encodeURIComponent(reportId)}${q}#${anchor}`, done);
}
