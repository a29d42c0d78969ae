import { useTranslation } from "~/i18n/useTranslation";
import { site } from "~/site";

/** The screen route that streams the signed-in patient's ZIP (an admin adds `?patientId=`). */
export const MY_DATA_DOWNLOAD_PATH = "/dashboard/my-data/download";

/** The download's address: the signed-in patient's own data, or for an admin one patient's. */
export function myDataDownloadHref(patientId?: string | null) {
  return patientId
    ? `${MY_DATA_DOWNLOAD_PATH}?patientId=${encodeURIComponent(patientId)}`
    : MY_DATA_DOWNLOAD_PATH;
}

/**
 * "Download my data" (decision 0018): what the ZIP holds and a plain link to it, so it works without
 * JavaScript (the server answers with the file as an attachment, or comes back here with a
 * message). Placed in Settings and on the My data page; `headingLevel` fits the host page.
 */
export function DownloadMyData({
  id = "download-my-data",
  headingLevel = 2,
}: {
  id?: string;
  headingLevel?: 2 | 3;
}) {
  const { t } = useTranslation();
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section aria-labelledby={id} className="card">
      <Heading id={id} className="text-lg font-bold text-slate-900">
        {t("fhir.title")}
      </Heading>
      <div className="mt-4 space-y-3 text-slate-700">
        <p>{t("fhir.intro", { product: site.productName })}</p>
        <p>{t("fhir.format")}</p>
        <p className="text-sm text-slate-600">{t("fhir.hint")}</p>
      </div>
      <div className="mt-5 flex justify-end">
        {/* No `download` attribute: a refusal comes back as a page with a message, not as a saved file. */}
        <a href={MY_DATA_DOWNLOAD_PATH} className="btn-primary w-full sm:w-auto">
          <svg aria-hidden="true" viewBox="0 0 20 20" className="h-5 w-5 shrink-0" fill="currentColor">
            <path d="M10 2a1 1 0 0 1 1 1v7.59l2.3-2.3a1 1 0 1 1 1.4 1.42l-4 4a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.42L9 10.6V3a1 1 0 0 1 1-1Zm-7 13a1 1 0 0 1 1 1v1h12v-1a1 1 0 1 1 2 0v2a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1v-2a1 1 0 0 1 1-1Z" />
          </svg>
          {t("fhir.button")}
        </a>
      </div>
    </section>
  );
}
