import { useTranslation } from "~/i18n/useTranslation";
import { messageText } from "~/i18n/message";
import { SPECIALTIES, SPECIALTY_KEYS } from "~/schemas/specialties";
import { TestPicker, type StepAnalyte } from "./TestPicker";

/** A test of the lab catalogue as the form offers it: LOINC (the value), English name, the reader's own. */
export type { StepAnalyte } from "./TestPicker";

const STEPS_MAX = 8;
type StepKind = "tests" | "specialist" | "facility";
type Typed = Record<string, unknown>;

/** Conform's list intents as plain submit buttons: they work the same with script or without. */
const insertIntent = (kind: StepKind) =>
  JSON.stringify({ type: "insert", payload: { name: "nextSteps", defaultValue: { kind } } });
const removeIntent = (index: number) =>
  JSON.stringify({ type: "remove", payload: { name: "nextSteps", index } });

const text = (v: unknown) => (typeof v === "string" ? v : "");
const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : typeof v === "string" && v ? [v] : []);

/**
 * The opinion's next steps beside its free text (decision 0114): up to 8 of repeat tests (from the
 * lab catalogue, in N days or weeks), a specialist (today, this week or within N weeks) or a facility
 * (a name or none for the nearest hospital, how soon, why). Adding and removing a step goes to the
 * server and back (Conform's list intents), so the form works without script; the test search is
 * the script's help, the full list of boxes is there without it. Field names are Conform's
 * (`nextSteps[0].loincs`).
 */
export function NextStepsFields({
  formId,
  initial,
  errors,
  analytes,
  busy,
}: {
  formId: string;
  initial: unknown;
  errors: Record<string, string[] | null | undefined>;
  analytes: StepAnalyte[];
  busy: boolean;
}) {
  const { t } = useTranslation();
  const steps = (Array.isArray(initial) ? initial : []).filter(
    (s): s is Typed => !!s && typeof s === "object",
  );
  const listError = errors["nextSteps"]?.[0];
  return (
    <fieldset className="space-y-3 rounded-lg border border-slate-300 p-3" data-testid="next-steps">
      <legend className="px-1 font-semibold text-slate-900">{t("steps.form.heading")}</legend>
      <p className="text-sm text-slate-600">{t("steps.form.hint")}</p>
      {listError && (
        <p className="field-error" role="alert">
          {messageText(t, listError)}
        </p>
      )}
      {steps.length === 0 && <p className="text-sm text-slate-700">{t("steps.form.none")}</p>}
      <ol className="space-y-3">
        {steps.map((step, i) => (
          <StepFields
            key={`${i}-${text(step.kind)}`}
            formId={formId}
            index={i}
            step={step}
            errors={errors}
            analytes={analytes}
            busy={busy}
          />
        ))}
      </ol>
      {steps.length < STEPS_MAX && (
        <div
          className="flex flex-wrap items-center gap-2"
          role="group"
          aria-labelledby={`${formId}-add-step`}
        >
          <span id={`${formId}-add-step`} className="text-sm font-medium text-slate-800">
            {t("steps.form.addLabel")}
          </span>
          {(["tests", "specialist", "facility"] as const).map((kind) => (
            <button
              key={kind}
              type="submit"
              name="__intent__"
              value={insertIntent(kind)}
              formNoValidate
              disabled={busy}
              className="btn-secondary text-sm"
              data-testid={`add-step-${kind}`}
            >
              + {t(KIND_LABEL[kind])}
            </button>
          ))}
        </div>
      )}
    </fieldset>
  );
}

const KIND_LABEL: Record<StepKind, string> = {
  tests: "steps.form.addTests",
  specialist: "steps.form.addSpecialist",
  facility: "steps.form.addFacility",
};

function StepFields({
  formId,
  index,
  step,
  errors,
  analytes,
  busy,
}: {
  formId: string;
  index: number;
  step: Typed;
  errors: Record<string, string[] | null | undefined>;
  analytes: StepAnalyte[];
  busy: boolean;
}) {
  const { t } = useTranslation();
  const kind = (["tests", "specialist", "facility"] as const).find((k) => k === step.kind) ?? "tests";
  const name = (f: string) => `nextSteps[${index}].${f}`;
  const id = (f: string) => `${formId}-nextSteps-${index}-${f}`;
  const err = (f: string) => errors[name(f)]?.[0] ?? null;
  const kindError = errors[`nextSteps[${index}]`]?.[0] ?? err("kind");
  const wiring = (f: string) => ({
    id: id(f),
    name: name(f),
    "aria-invalid": err(f) ? true : undefined,
    "aria-describedby": err(f) ? `${id(f)}-error` : undefined,
  });
  const error = (f: string) =>
    err(f) ? (
      <p id={`${id(f)}-error`} className="field-error" role="alert">
        {messageText(t, err(f)!)}
      </p>
    ) : null;
  // Stacked: "Within some weeks" needs the whole width of a phone, and of the form column at 1280 px.
  const soon = (
    <div className="grid gap-2">
      <div>
        <label htmlFor={id("urgency")} className="field-label">
          {t("steps.form.urgency")}
        </label>
        <select {...wiring("urgency")} defaultValue={text(step.urgency) || "week"} className="field-input">
          <option value="today">{t("steps.form.urgencyToday")}</option>
          <option value="week">{t("steps.form.urgencyWeek")}</option>
          <option value="weeks">{t("steps.form.urgencyWeeks")}</option>
        </select>
        {error("urgency")}
      </div>
      <div>
        <label htmlFor={id("weeks")} className="field-label">
          {t("steps.form.weeksCount")}
        </label>
        <input
          {...wiring("weeks")}
          type="number"
          inputMode="numeric"
          min={1}
          max={52}
          defaultValue={text(step.weeks)}
          className="field-input"
        />
        {error("weeks")}
      </div>
    </div>
  );
  return (
    <li className="space-y-3 rounded-md border border-slate-200 bg-slate-50 p-3" data-testid="step-fields">
      <input type="hidden" name={name("kind")} value={kind} />
      <div className="flex items-start justify-between gap-2">
        <h4 className="font-semibold text-slate-900">
          {t("steps.form.stepN", { n: index + 1 })}: {t(KIND_LABEL[kind])}
        </h4>
        <button
          type="submit"
          name="__intent__"
          value={removeIntent(index)}
          formNoValidate
          disabled={busy}
          className="link shrink-0 text-sm"
        >
          {t("steps.form.remove", { n: index + 1 })}
        </button>
      </div>
      {kindError && (
        <p className="field-error" role="alert">
          {messageText(t, kindError)}
        </p>
      )}
      {kind === "tests" && (
        <>
          <TestPicker
            id={id("loincs")}
            name={name("loincs")}
            chosen={list(step.loincs)}
            analytes={analytes}
            error={err("loincs")}
          />
          <div className="grid grid-cols-2 gap-2">
            <div>
              <label htmlFor={id("in")} className="field-label">
                {t("steps.form.inCount")}
              </label>
              <input
                {...wiring("in")}
                type="number"
                inputMode="numeric"
                min={1}
                max={366}
                defaultValue={text(step.in)}
                className="field-input"
              />
              {error("in")}
            </div>
            <div>
              <label htmlFor={id("unit")} className="field-label">
                {t("steps.form.unit")}
              </label>
              <select {...wiring("unit")} defaultValue={text(step.unit) || "weeks"} className="field-input">
                <option value="days">{t("steps.form.days")}</option>
                <option value="weeks">{t("steps.form.weeks")}</option>
              </select>
              {error("unit")}
            </div>
          </div>
        </>
      )}
      {kind === "specialist" && (
        <>
          <div>
            <label htmlFor={id("specialty")} className="field-label">
              {t("steps.form.specialty")}
            </label>
            <select {...wiring("specialty")} defaultValue={text(step.specialty)} className="field-input">
              <option value="">{t("steps.form.choose")}</option>
              {SPECIALTIES.map((s) => (
                <option key={s} value={s}>
                  {t(SPECIALTY_KEYS[s])}
                </option>
              ))}
            </select>
            {error("specialty")}
          </div>
          {soon}
        </>
      )}
      {kind === "facility" && (
        <>
          <div>
            <label htmlFor={id("facility")} className="field-label">
              {t("steps.form.facility")}
            </label>
            <input
              {...wiring("facility")}
              maxLength={300}
              defaultValue={text(step.facility)}
              className="field-input"
            />
            {error("facility")}
          </div>
          {soon}
          <div>
            <label htmlFor={id("reason")} className="field-label">
              {t("steps.form.reason")}
            </label>
            <input
              {...wiring("reason")}
              maxLength={300}
              defaultValue={text(step.reason)}
              className="field-input"
            />
            {error("reason")}
          </div>
        </>
      )}
    </li>
  );
}
