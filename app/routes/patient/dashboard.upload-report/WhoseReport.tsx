import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { FieldError, type FieldMeta } from "~/components/ui/Field";
import type { Whose } from "./route";

/**
 * Whose report this is: a health worker finds one of their centre's patients (a plain GET search,
 * so it works without JavaScript) and picks them; a family account picks a member (its own
 * profile first). The choice travels as `patientId` with the upload, whichever way it is sent.
 */
export function PatientSearch({ whose }: { whose: Whose }) {
  const { t } = useTranslation();
  if (whose.kind !== "centre") return null;
  return (
    <Form method="get" className="card mb-4 flex flex-wrap items-end gap-2" role="search">
      <div className="min-w-0 flex-1">
        <label htmlFor="patient-search" className="field-label">
          {t("registration.findPatient")}
        </label>
        <input
          id="patient-search"
          name="q"
          type="search"
          defaultValue={whose.q}
          className="field-input"
          maxLength={100}
        />
      </div>
      <button type="submit" className="btn-secondary">
        {t("registration.findButton")}
      </button>
    </Form>
  );
}

export function WhoseReportField({ whose, meta }: { whose: Whose; meta: FieldMeta }) {
  const { t } = useTranslation();
  const chosen = (meta.initialValue as string | undefined) || whose.selected;
  if (whose.kind === "centre" && whose.options.length === 0) {
    return (
      <p
        className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-amber-900"
        data-testid="no-centre-patients"
      >
        {t("registration.noCentrePatients")}{" "}
        <a href="/dashboard/centre/register" className="link">
          {t("registration.registerNew")}
        </a>
      </p>
    );
  }
  return (
    <div>
      <label htmlFor={meta.id} className="field-label">
        {t("registration.whoseReport")}
        <span aria-hidden="true" className="text-red-700">
          {" "}
          *
        </span>
      </label>
      <select
        id={meta.id}
        name={meta.name}
        defaultValue={chosen}
        aria-invalid={meta.errors?.length ? true : undefined}
        aria-describedby={meta.errors?.length ? meta.errorId : undefined}
        aria-required
        className="field-input"
        data-testid="whose-report"
      >
        {whose.kind === "centre" && <option value="">{t("registration.choosePatientPlaceholder")}</option>}
        {whose.options.map((o, i) => (
          <option key={o.id} value={o.id}>
            {whose.kind === "family" && i === 0 ? `${o.label} — ${t("registration.myself")}` : o.label}
          </option>
        ))}
      </select>
      <FieldError meta={meta} />
    </div>
  );
}
