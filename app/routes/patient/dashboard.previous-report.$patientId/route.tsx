import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { whoseOptions } from "~/domain/care/index.server";
import { listPatientReports, phrasesFor, stepWords, voiceNotesFor } from "~/domain/consultation/index.server";
import { config } from "~/config.server";
import { isDomainError } from "~/domain/platform/errors";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { pageError, pageInfo, screenPage } from "~/web/screen.server";
import { askAction } from "./ask.server";
import { cardOf } from "./cards.server";
import { askSecondAction } from "./second-opinion.server";
import { deleteAction } from "./delete.server";
import { attachOffersFor, stepAttachAction, stepStateAction } from "./steps.server";
import { labsFor } from "./labs.server";
import { LabWordsProvider } from "~/components/labs/words";
import { ReportList } from "./ReportList";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const patientId = params.patientId ?? "";
  const page = screenPage(request);
  // Inside the dashboard, why not (the same answer whether that id exists or not).
  const notAllowed = async () => {
    const { t } = await tFor(request);
    const patient = actor.accountType === "Patient";
    return data(
      {
        title: t("reports.previousTitle"),
        notAllowed: t(patient ? "reports.notYourReports" : "reports.patientOrAdminOnly"),
        ownReports: patient ? `/dashboard/previous-report/${encodeURIComponent(actor.id)}` : null,
      },
      { status: 403 },
    );
  };
  if (actor.accountType === "Expert") return notAllowed();
  let result: Awaited<ReturnType<typeof listPatientReports>>;
  try {
    // Whoever may act for the profile: the person, their family manager, their centre, an Admin
    // (an unknown patient id is not found for admins).
    result = await listPatientReports(actor, patientId, page);
  } catch (err) {
    if (actor.accountType === "Patient" && isDomainError(err) && err.code === "forbidden")
      return notAllowed();
    pageError(err);
  }
  const info = pageInfo(result);
  if (result.items.length === 0 && page.page > info.totalPages && result.total > 0) {
    const url = new URL(request.url);
    url.searchParams.set("page", String(info.totalPages));
    throw redirect(`${url.pathname}${url.search}`);
  }
  const { t, locale } = await tFor(request);
  // The phrase-book entries of each opinion, in the reader's language (decision 0081).
  const said = new Map(
    await Promise.all(result.items.map(async (r) => [r._id, await phrasesFor(r.phrases, locale)] as const)),
  );
  // Checked lab values in plain words, and the series over time (decision 0084).
  const labs = await labsFor(
    actor,
    patientId,
    result.items.filter((r) => r.status === "Reviewed").map((r) => r._id),
    t,
    locale,
  );
  // A family account switches between the profiles it acts for ("whose reports").
  const whose = await whoseOptions(actor);
  const voice = await voiceNotesFor(
    actor,
    result.items.map((r) => r._id),
  );
  // A repeat report offered for an earlier opinion's tests step (decision 0114).
  const offers = await attachOffersFor(
    actor,
    result.items.map((r) => r._id),
    t,
    locale,
  );
  return {
    title: t("reports.previousTitle"),
    notAllowed: null,
    own: actor.id === patientId,
    managed: actor.accountType === "Patient" && actor.id !== patientId,
    whose,
    canUpload: actor.accountType === "Patient",
    items: result.items.map((r) => ({
      ...cardOf(r, { mayAskSecond: actor.accountType === "Admin" }),
      voiceNotes: voice.get(r._id) ?? [],
      phrases: said.get(r._id) ?? [],
      labLines: labs.lines[r._id] ?? [],
      // The opinion's next steps in the reader's words (decision 0114).
      steps: (r.nextSteps ?? []).map((s) => stepWords(s, t, locale)),
      attachOffers: offers[r._id] ?? [],
    })),
    // Her side and her centre close the steps; an admin looking on does not.
    canActSteps: actor.accountType !== "Admin",
    labSeries: labs.series,
    labWords: labs.words,
    // Voice notes are added by the patient's side only (an admin looking on does not).
    canVoice: actor.accountType !== "Admin",
    voiceMaxSeconds: config().voiceMaxSeconds,
    pagination: info,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

/** Two forms on each card: a follow-up question (ask.server.ts) and deleting the report (delete.server.ts). */
export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const url = new URL(request.url);
  url.searchParams.delete("confirm");
  url.searchParams.delete("index");
  const back = `/dashboard/previous-report/${encodeURIComponent(params.patientId ?? "")}${url.search}`;
  const form = await readForm(request);
  const screen = { actor, t, back, ip: clientOf(context).ip };
  if (form.get("intent") === "ask") return askAction(form, screen);
  if (form.get("intent") === "second-opinion") return askSecondAction(form, screen);
  if (form.get("intent") === "step-state") return stepStateAction(form, screen);
  if (form.get("intent") === "step-attach") return stepAttachAction(form, screen);
  return deleteAction(form, screen);
}

export type ListData = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

export default function PreviousReports() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  if (loaded.notAllowed !== null) {
    return (
      <NotAllowed title={t("reports.previousTitle")} message={loaded.notAllowed}>
        {loaded.ownReports && (
          <Link to={loaded.ownReports} className="link">
            {t("reports.seeOwnReports")}
          </Link>
        )}
      </NotAllowed>
    );
  }
  return (
    <LabWordsProvider words={loaded.labWords}>
      <ReportList {...loaded} />
    </LabWordsProvider>
  );
}
