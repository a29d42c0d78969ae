import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { MY_DATA_DOWNLOAD_PATH, myDataDownloadHref } from "~/components/DownloadMyData";
import { WhoseReports } from "~/components/WhoseReports";
import { PageHeader } from "~/components/reports/PageHeader";
import { formatPeriod } from "~/components/rights/format";
import { config } from "~/config.server";
import { twoFactorStatus } from "~/domain/accounts/index.server";
import { whoseOptions } from "~/domain/care/index.server";
import {
  consentOverview,
  getNominee,
  grievanceContact,
  listOwnRequests,
  openErasureOf,
} from "~/domain/rights/index.server";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { redirectWithError } from "~/web/toast.server";
import { accessData, memberData, revokeCentreAction, revokeManagerAction } from "./access.server";
import { AccessSection, MemberSection, TrailSection } from "./AccessSection";
import { consentAction } from "./consent.server";
import { ConsentsSection } from "./ConsentsSection";
import { correctionAction } from "./correction.server";
import { cancelErasureAction, erasureAction } from "./erasure.server";
import { ErasureSection } from "./ErasureSection";
import { GrievanceSection } from "./GrievanceSection";
import type { FormIntent, IntentArgs } from "./intent.server";
import { nomineeAction, removeNomineeAction } from "./nominee.server";
import { NomineeSection } from "./NomineeSection";
import { RequestsSection } from "./RequestsSection";
import { MY_DATA } from "./Section";

/**
 * My data: consents with the text shown and its version, correction requests and their answers,
 * erasure with notice and cancel, the nominee, the grievance officer, and the way to the data
 * download. Every form is a plain POST with an intent, so all of it works without JavaScript; each
 * section's component sits beside its action (`ConsentsSection.tsx` + `consent.server.ts` …), and
 * the rules are in the domain (consent.server.ts, rights.server.ts).
 */

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const patient = actor.accountType === "Patient";
  const c = config();
  return {
    title: t("rights.title"),
    patient,
    consents: patient ? await consentOverview(actor, locale) : null,
    requests: await listOwnRequests(actor),
    erasure: await openErasureOf(actor.id),
    // With two-step login on, the erasure asks for a code too.
    twoStep: (await twoFactorStatus(actor)).enabled,
    nominee: await getNominee(actor),
    grievance: grievanceContact(),
    notice: formatPeriod(c.erasureNoticeMs, locale),
    retention: formatPeriod(c.auditRetentionMs, locale),
    confirm: new URL(request.url).searchParams.get("confirm") === "review",
    // A family account downloads the data of each profile it acts for.
    whose: patient ? await whoseOptions(actor) : [],
    access: await accessData(actor, locale, new URL(request.url)),
    member: await memberData(actor, locale, new URL(request.url)),
  };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

/** Every form posts here; its `intent` names the section whose action answers. */
export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const formData = await readForm(request);
  const args: IntentArgs = { actor, t, locale, client: clientOf(context), formData };
  switch (String(formData.get("intent") ?? "")) {
    case "consent":
      return consentAction(args);
    case "correction":
      return correctionAction(args);
    case "erasure":
      return erasureAction(args);
    case "cancel-erasure":
      return cancelErasureAction(args);
    case "nominee":
      return nomineeAction(args);
    case "remove-nominee":
      return removeNomineeAction(args);
    case "revoke-manager":
      return revokeManagerAction(args);
    case "revoke-centre":
      return revokeCentreAction(args);
  }
  return redirectWithError(MY_DATA, t("rights.unknownAction"));
}

export default function MyData() {
  const { t } = useTranslation();
  const { patient, whose, access } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const location = useLocation();
  const resultFor = (i: FormIntent) => (actionData?.intent === i ? actionData.result : undefined);
  const jumps = [
    ...(access ? [["access", t("control.accessTitle")]] : []),
    ...(patient ? [["consents", t("rights.consentsTitle")]] : []),
    ...(access ? [["trail", t("control.trailTitle")]] : []),
    ["requests", t("rights.requestsTitle")],
    ["nominee", t("rights.nomineeTitle")],
    ["grievance", t("rights.grievanceTitle")],
    ["erasure", t("rights.erasureTitle")],
  ];
  return (
    <div className="space-y-6">
      <PageHeader title={t("rights.title")} intro={t("rights.intro")} />
      <nav aria-label={t("rights.jumpTo")}>
        <ul className="flex flex-wrap gap-2">
          {jumps.map(([id, label]) => (
            <li key={id}>
              <a
                href={`#${id}`}
                className="inline-flex min-h-11 items-center rounded-full border border-slate-300 bg-white px-3 text-sm font-semibold text-slate-800 hover:bg-slate-100"
              >
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {/* The data download (FHIR bundle and files in a ZIP): a patient's own data only. */}
      {patient && (
        <section
          aria-labelledby="download-title"
          className="card flex flex-wrap items-center justify-between gap-3"
        >
          <div className="min-w-0">
            <h2 id="download-title" className="text-xl font-bold text-slate-900">
              {t("rights.downloadTitle")}
            </h2>
            <p className="mt-1 max-w-prose text-slate-700">{t("rights.downloadText")}</p>
          </div>
          <a href={MY_DATA_DOWNLOAD_PATH} className="btn-secondary" data-download-my-data>
            {t("rights.downloadButton")}
          </a>
          {whose.length > 0 && (
            <div className="w-full">
              <WhoseReports
                options={whose}
                label={t("family.whoseDownload")}
                hrefFor={(id) => myDataDownloadHref(whose.find((o) => o.self)?.id === id ? null : id)}
                reloadDocument
              />
            </div>
          )}
        </section>
      )}
      <MemberSection />
      <AccessSection />
      {patient && <ConsentsSection />}
      <TrailSection />
      <RequestsSection lastResult={resultFor("correction")} />
      <NomineeSection lastResult={resultFor("nominee")} />
      <GrievanceSection />
      <ErasureSection key={`erasure-${location.key}`} lastResult={resultFor("erasure")} />
    </div>
  );
}
