import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { Section } from "./Section";

/** Consents, correction and erasure requests, nominee and grievance officer live on My data. */
export function MyDataLink() {
  const { t } = useTranslation();
  return (
    <Section id="my-data-heading" title={t("rights.settingsTitle")}>
      <p className="max-w-prose text-slate-700">{t("rights.settingsText")}</p>
      <Link to="/dashboard/my-data" className="btn-secondary mt-4">
        {t("rights.settingsLink")}
      </Link>
    </Section>
  );
}
