import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { NotAllowed } from "~/components/reports/NotAllowed";
import { PageHeader } from "~/components/reports/PageHeader";
import type { NoticeChoice } from "~/components/care/NoticeForm";
import { familyNoticePreferences, listFamily } from "~/domain/care/index.server";
import { config } from "~/config.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { noticeFormAction, numberProofAction } from "~/web/notice-form.server";
import { clientOf } from "~/web/request.server";
import { addAction, type AddData } from "./add.server";
import { AddMemberForm } from "./AddMemberForm";
import { MemberList } from "./MemberList";

/**
 * Family (decision 0030): the profiles a patient account acts for — its own and its family
 * members' — with their short IDs and a way to each one's reports, and the form that adds a
 * family member with the consent their age needs, and how each member hears that an opinion is
 * ready (SMS or a call, decision 0080). Works without JavaScript.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const title = t("family.title");
  if (actor.accountType !== "Patient") {
    return data({ title, notAllowed: t("family.patientsOnly") }, { status: 403 });
  }
  const members = await listFamily(actor);
  // How each member without a login hears that an opinion is ready (decision 0080).
  const windows = config().voice.windows;
  const notices: Record<string, NoticeChoice> = {};
  for (const [id, n] of Object.entries(await familyNoticePreferences(actor))) notices[id] = { ...n, windows };
  return { title, notAllowed: null, members, notices };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  if (form.get("intent") === "calls")
    return noticeFormAction({
      actor,
      patientId: String(form.get("patientId") ?? ""),
      form,
      back: "/dashboard/family",
      t,
      saved: t("calls.savedMember"),
      ip: clientOf(context).ip,
    });
  const intent = form.get("intent");
  if (intent === "proof-send" || intent === "proof-check")
    return numberProofAction({
      actor,
      patientId: String(form.get("patientId") ?? ""),
      form,
      back: "/dashboard/family",
      t,
      client: clientOf(context),
      anchor: `notice-${String(form.get("patientId") ?? "")}`,
    });
  return addAction({ actor, t, form, ip: clientOf(context).ip });
}

type Loaded = Exclude<ReturnType<typeof useLoaderData<typeof loader>>, { notAllowed: string }>;

export default function Family() {
  const { t } = useTranslation();
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as AddData | undefined;
  const location = useLocation();
  if (loaded.notAllowed !== null) return <NotAllowed title={t("family.title")} message={loaded.notAllowed} />;
  const { members, notices } = loaded as Loaded;
  return (
    <section>
      <PageHeader title={t("family.title")} intro={t("family.intro")} />
      <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
        <MemberList members={members} notices={notices} />
        {/* A new page after each added member (the redirect): an empty form, as without JavaScript. */}
        <AddMemberForm key={location.key} lastResult={actionData?.result} />
      </div>
    </section>
  );
}
