import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import type { ReviewLabs } from "./route";

/** A refused lab form's answer: which form (a value's id, or "add"), the message, field errors. */
export type LabError = {
  lab?: {
    target: string;
    message: string;
    fieldErrors: Record<string, string[]>;
    /** What was typed, shown again (a page without script re-renders the form). */
    typed: { value?: string; unit?: string; result?: string; range?: string; loinc?: string };
  };
};

/** A lab form's answer as data (a page with its script, decision 0090): the refusal, or what was done. */
export type LabReply = {
  lab?: LabError["lab"] | null;
  done?: { message: string; intent: string; action: string | null } | null;
};

function FieldError({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p id={id} className="field-error">
      {messages.join(" ")}
    </p>
  );
}

/** The words a text result is most often printed as (decision 0098): offered, never required. */
export const RESULT_WORDS = [
  "Non-reactive",
  "Reactive",
  "Negative",
  "Positive",
  "Nil",
  "Trace",
  "Absent",
  "Present",
  "Not detected",
  "Detected",
  "+",
  "++",
  "+++",
];
/** The longest text result the server keeps (MAX_TEXT in the labs domain). */
const MAX_TEXT = 40;

/** The list the result fields offer, once per page. */
export function ResultWords() {
  return (
    <datalist id="lab-result-words">
      {RESULT_WORDS.map((w) => (
        <option key={w} value={w} />
      ))}
    </datalist>
  );
}

/**
 * The fields of a value: a number (value, unit, printed range), a text result (result and printed
 * reference, decision 0098), or both when the test is not chosen yet (adding a value).
 */
export function ValueFields({
  prefix,
  v,
  error,
  kind = "number",
}: {
  prefix: string;
  v?: { value: string; unit: string; range: string };
  error: NonNullable<LabError["lab"]> | null;
  kind?: "number" | "text" | "both";
}) {
  const { t } = useTranslation();
  const fe = error?.fieldErrors ?? {};
  const typed = error?.typed ?? {};
  const field = (
    name: "value" | "unit" | "range" | "result",
    label: string,
    def: string,
    mode?: "decimal",
    words?: true,
  ) => (
    <label className="block text-sm font-medium text-slate-800">
      {label}
      <input
        name={name}
        defaultValue={typed[name] ?? def}
        inputMode={mode}
        list={words ? "lab-result-words" : undefined}
        maxLength={words ? MAX_TEXT : undefined}
        className="field-input mt-1"
        aria-invalid={fe[name] ? true : undefined}
        aria-describedby={
          [fe[name] ? `${prefix}-${name}-error` : "", words ? `${prefix}-${name}-hint` : ""]
            .filter(Boolean)
            .join(" ") || undefined
        }
      />
      {words && (
        <span id={`${prefix}-${name}-hint`} className="mt-0.5 block text-xs font-normal text-slate-700">
          {t("labs.resultHint")}
        </span>
      )}
      <FieldError id={`${prefix}-${name}-error`} messages={fe[name]} />
    </label>
  );
  if (kind === "text")
    return (
      <div className="grid gap-2 sm:grid-cols-2">
        {field("result", t("labs.result"), v?.value ?? "", undefined, true)}
        {field("range", t("labs.referenceOptional"), v?.range ?? "")}
      </div>
    );
  // Value and unit side by side; the range on a line of its own, wide enough for one printed in
  // parts ("Male : 0.7 - 1.4 mg/dl Female : 0.6 - 1.2 mg/dl", decision 0105).
  return (
    <div className="grid grid-cols-2 gap-2">
      {field("value", t("labs.value"), v?.value ?? "", "decimal")}
      {field("unit", t("labs.unit"), v?.unit ?? "")}
      <div className="col-span-2">{field("range", t("labs.rangeOptional"), v?.range ?? "")}</div>
      {kind === "both" && (
        <div className="col-span-2">{field("result", t("labs.result"), "", undefined, true)}</div>
      )}
    </div>
  );
}

export function AddValue({
  catalogue,
  error,
  busy,
}: {
  catalogue: NonNullable<ReviewLabs["catalogue"]>;
  error: NonNullable<LabError["lab"]> | null;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const fe = error?.fieldErrors ?? {};
  return (
    <section
      id="labs-add"
      className="rounded-md border border-slate-200 p-3"
      aria-labelledby="labs-add-title"
    >
      <h3 id="labs-add-title" className="font-semibold text-slate-900">
        {t("labs.addTitle")}
      </h3>
      <Form method="post" className="mt-2 space-y-2" preventScrollReset>
        <input type="hidden" name="intent" value="lab-add" />
        {error && !Object.keys(fe).length && (
          <p role="alert" className="field-error">
            {error.message}
          </p>
        )}
        <label className="block text-sm font-medium text-slate-800">
          {t("labs.analyte")}
          <select
            name="loinc"
            className="field-input mt-1"
            defaultValue={error?.typed.loinc ?? ""}
            aria-invalid={fe.loinc ? true : undefined}
            aria-describedby={fe.loinc ? "lab-add-loinc-error" : undefined}
          >
            <option value="">{t("labs.chooseAnalyte")}</option>
            {catalogue.map((a) => (
              <option key={a.loinc} value={a.loinc}>
                {a.units.length ? `${a.name} (${a.units.join(", ")})` : a.name}
              </option>
            ))}
          </select>
          <FieldError id="lab-add-loinc-error" messages={fe.loinc} />
        </label>
        <ValueFields prefix="lab-add" error={error} kind="both" />
        <button type="submit" className="btn-primary px-3 text-sm" disabled={busy}>
          {t("labs.add")}
        </button>
      </Form>
    </section>
  );
}
