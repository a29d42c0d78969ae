import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import type { loader } from "./route";
import { Section } from "./Section";

/** Whom to complain to (the grievance officer from the configuration); no form. */
export function GrievanceSection() {
  const { t } = useTranslation();
  const { grievance } = useLoaderData<typeof loader>();
  return (
    <Section id="grievance" title={t("rights.grievanceTitle")} intro={t("rights.grievanceText")}>
      <dl className="grid gap-x-4 gap-y-1 sm:grid-cols-[auto_1fr]">
        <dt className="font-semibold text-slate-700">{t("rights.grievanceName")}</dt>
        <dd className="break-words">{grievance.name}</dd>
        <dt className="font-semibold text-slate-700">{t("rights.grievanceEmail")}</dt>
        <dd className="break-all">
          <a className="link" href={`mailto:${grievance.email}`}>
            {grievance.email}
          </a>
        </dd>
        <dt className="font-semibold text-slate-700">{t("rights.grievancePhone")}</dt>
        <dd>
          <a className="link" href={`tel:${grievance.phone.replace(/[^\d+]/g, "")}`}>
            {grievance.phone}
          </a>
        </dd>
      </dl>
      <p className="mt-3 max-w-prose text-sm text-slate-600">{t("rights.grievanceBoard")}</p>
    </Section>
  );
}
