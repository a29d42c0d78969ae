import { useTranslation } from "~/i18n/useTranslation";
import { site } from "~/site";

export default function AboutUs() {
  const { t } = useTranslation();
  const missions = ["about.mission1", "about.mission2", "about.mission3", "about.mission4"] as const;
  return (
    <main id="main" className="mx-auto w-full max-w-4xl flex-1 px-4 py-10">
      <h1 className="text-3xl font-bold">{t("about.title")}</h1>
      <p className="mt-3 text-lg text-slate-700">{t("about.intro", { product: site.productName })}</p>
      <section className="card mt-8" aria-labelledby="vision">
        <h2 id="vision" className="text-xl font-bold text-brand-800">
          {t("about.visionTitle")}
        </h2>
        <p className="mt-2">{t("about.visionText")}</p>
      </section>
      <section className="card mt-6" aria-labelledby="mission">
        <h2 id="mission" className="text-xl font-bold text-brand-800">
          {t("about.missionTitle")}
        </h2>
        <ul className="mt-2 list-disc space-y-1 pl-6">
          {missions.map((k) => (
            <li key={k}>{t(k)}</li>
          ))}
        </ul>
      </section>
      <section className="mt-6 grid gap-6 md:grid-cols-2" aria-labelledby="offices">
        <h2 id="offices" className="sr-only">
          {t("about.officesTitle")}
        </h2>
        <div className="card">
          <h3 className="font-bold">{t("about.outreachOffice")}</h3>
          <address className="mt-1 not-italic">{site.outreachOffice}</address>
        </div>
        <div className="card">
          <h3 className="font-bold">{t("about.corporateOffice")}</h3>
          <address className="mt-1 not-italic">{site.corporateOffice}</address>
        </div>
        <div className="card md:col-span-2">
          <p>
            <span className="font-bold">{t("about.helpline")}:</span>{" "}
            <a className="link" href={`tel:${site.helpline.replace(/\s/g, "")}`}>
              {site.helpline}
            </a>
          </p>
          <p>
            <span className="font-bold">{t("about.email")}:</span>{" "}
            <a className="link" href={`mailto:${site.supportEmail}`}>
              {site.supportEmail}
            </a>
          </p>
        </div>
      </section>
    </main>
  );
}
