import { useTranslation } from "~/i18n/useTranslation";

/** A refused link: why, and (when it is gone for good) that only the patient can make a new one. */
export function Gone({ message, gone }: { message: string; gone: boolean }) {
  const { t } = useTranslation();
  return (
    <section>
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">
        {gone ? t("share.goneTitle") : t("share.pageTitle")}
      </h1>
      <p
        role="alert"
        data-testid="share-refusal"
        className="mt-6 rounded-lg border-2 border-amber-500 bg-amber-50 p-4 font-semibold text-amber-950"
      >
        {message}
      </p>
      {gone && <p className="mt-4 text-slate-700">{t("share.goneHint")}</p>}
    </section>
  );
}
