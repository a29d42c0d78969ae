import { data } from "@remix-run/node";
import { addValue, checkValue, labReview } from "~/domain/consultation/index.server";
import type { Actor } from "~/domain/platform/index.server";
import { CATALOGUE, displayUnit, storedMeasure } from "~/domain/records/labs";
import { screenFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import type { ReviewScreen } from "./claim.server";

/**
 * "Values read from this report" (decision 0084): for the expert holding the report, the reading's
 * state, every value with its status and the page to show it on; the catalogue to add one from
 * (when asked for: `?add=1`).
 */
export async function labsSection(
  actor: Actor,
  report: { _id: string; reportUrl: string; resourceType: string },
  selected: string | null,
  adding: boolean,
) {
  const review = await labReview(actor, report._id);
  if (!review) return null;
  const pick =
    review.values.find((v) => v._id === selected && v.status !== "removed" && v.page && v.box) ?? null;
  return {
    ...review,
    // The unit as printed (or as the expert typed it), else the analyte's unit as people read it;
    // where the value stands against its printed range: its measure's judgement (decision 0088).
    values: review.values.map((v) => ({
      ...v,
      shownUnit: v.printedUnit ?? displayUnit(v.unit),
      judgement: storedMeasure(v).judgement,
    })),
    // The highlight: the value's page (a PDF's page rendered; a photo is its own page) and its box.
    preview: pick
      ? {
          valueId: pick._id,
          name: pick.name,
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
          name: a.name,
          // As people read them ("×10³/µL"); the unit field takes these as typed.
          units: [a.unit, ...a.alt.map((u) => u.ucum)].map(displayUnit).filter(Boolean),
        })),
  };
}

const text = (form: FormData, key: string) => {
  const v = form.get(key);
  return typeof v === "string" ? v : undefined;
};

/** Confirm, correct, remove or add one value in one step; the form keeps its input on a refusal. */
export async function labAction(intent: "lab-check" | "lab-add", form: FormData, screen: ReviewScreen) {
  const { actor, t, reportId } = screen;
  const valueId = text(form, "valueId") ?? "";
  const fields = { value: text(form, "value"), unit: text(form, "unit"), range: text(form, "range") };
  try {
    if (intent === "lab-add") await addValue(actor, reportId, { loinc: text(form, "loinc"), ...fields });
    else
      await checkValue(
        actor,
        reportId,
        valueId,
        text(form, "action") === "correct"
          ? { action: "correct", ...fields }
          : { action: text(form, "action") },
      );
  } catch (err) {
    const f = screenFailure(err, t);
    return data(
      {
        lab: {
          target: intent === "lab-add" ? "add" : valueId,
          message: f.message,
          fieldErrors: f.fieldErrors ?? {},
          typed: { ...fields, loinc: text(form, "loinc") },
        },
      },
      { status: f.status, headers: f.headers },
    );
  }
  const back = `/dashboard/add-review/${reportId}${intent === "lab-check" ? `?value=${encodeURIComponent(valueId)}` : ""}#labs`;
  return redirectWithSuccess(back, t("labs.checked"));
}
