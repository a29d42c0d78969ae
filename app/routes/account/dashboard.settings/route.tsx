import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation, useRouteLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { DownloadMyData } from "~/components/DownloadMyData";
import { formatPeriod } from "~/components/rights/format";
import { TwoStepSection } from "~/components/TwoFactor";
import { config } from "~/config.server";
import {
  avatarUrl,
  expertUser,
  getProfile,
  listSessions,
  twoFactorStatus,
} from "~/domain/accounts/index.server";
import { smsNumberOf } from "~/domain/messaging/index.server";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { requireActor } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { maskPhone } from "~/lib/phone.server";
import { clientOf } from "~/web/request.server";
import { numberProofAction } from "~/web/notice-form.server";
import { SETTINGS } from "./shared";
import type { loader as dashboardLoader } from "~/routes/account/dashboard/route";
import { deleteAction, deleteStartAction } from "./delete.server";
import { DeleteSection } from "./DeleteSection";
import { expertDetailsAction } from "./expert-details.server";
import { ExpertSection } from "./ExpertSection";
import { MyDataLink } from "./MyDataLink";
import { notifyAction } from "./notify.server";
import { callsAction } from "./calls.server";
import { CallSection } from "./CallSection";
import { noticePreference, reminderPreference } from "~/domain/care/index.server";
import { remindersAction } from "./reminders.server";
import { RemindersSection } from "./RemindersSection";
import { NotifySection } from "./NotifySection";
import { passwordAction } from "./password.server";
import { PasswordSection } from "./PasswordSection";
import { pictureAction } from "./picture.server";
import { PictureSection } from "./PictureSection";
import { profileAction } from "./profile.server";
import { ProfileSection } from "./ProfileSection";
import { revokeOthersAction, revokeSessionAction } from "./sessions.server";
import { SessionsSection } from "./SessionsSection";

/**
 * Settings: one screen, one URL, a section per task. Each section's form posts here with its
 * `intent`; the action hands it to that task's handler, which sits beside the section
 * (`PasswordSection.tsx` + `password.server.ts` …), so plain form posts work without JavaScript.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { user, profile } = await getProfile(actor.id);
  const { t, locale } = await tFor(request);
  return {
    title: t("profile.settings"),
    firstName: user.firstName,
    lastName: user.lastName,
    image: avatarUrl(user.image),
    profile: {
      firstName: user.firstName,
      lastName: user.lastName,
      dateOfBirth: profile?.dateOfBirth ?? "",
      gender: profile?.gender ?? "",
      contactNumber: profile?.contactNumber || user.contactNumber || "",
      about: profile?.about ?? "",
    },
    // The schema's "not in the future" rule uses the UTC date, so the picker's limit does too.
    today: new Date().toISOString().slice(0, 10),
    // Experts: their verification details.
    expert: actor.accountType === "Expert" ? ((await expertUser(actor.id)).expertDetails ?? null) : null,
    // Experts and admins choose how notifications reach them; patients do not.
    notify:
      actor.accountType === "Patient"
        ? null
        : { channel: user.notify, mobile: maskPhone(smsNumberOf(user)) || null },
    // Patients: how they hear that an opinion is ready, SMS or a call (decision 0080).
    calls:
      actor.accountType === "Patient"
        ? { ...(await noticePreference(actor)), windows: config().voice.windows }
        : null,
    // Patients: how and when they are reminded of their next steps (decision 0114).
    reminders: actor.accountType === "Patient" ? await reminderPreference(actor, null) : null,
    sessions: await listSessions(actor),
    // Two-step login: its state here, set up and managed at /dashboard/two-step.
    twoStep: await twoFactorStatus(actor),
    // "Delete account" is the erasure, after this notice unless the person asks for now.
    erasureNotice: formatPeriod(config().erasureNoticeMs, locale),
  };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const client = clientOf(context);
  // The picture is the one multipart form: its file is streamed, never read into a FormData.
  if ((request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data")) {
    return pictureAction(request, { actor, t, client });
  }
  const formData = await readForm(request);
  const args = { formData, actor, t, locale, client };
  switch (formData.get("intent")) {
    case "profile":
      return profileAction(args);
    case "expert-details":
      return expertDetailsAction(args);
    case "notify":
      return notifyAction(args);
    case "calls":
      return callsAction(args);
    case "reminders":
      return remindersAction(args);
    case "proof-send":
    case "proof-check":
      return numberProofAction({
        actor,
        patientId: null,
        form: formData,
        back: SETTINGS,
        t,
        client,
        anchor: "calls-heading",
      });
    case "password":
      return passwordAction(args);
    case "revoke-session":
      return revokeSessionAction(args);
    case "revoke-others":
      return revokeOthersAction(args);
    case "delete":
      return deleteStartAction();
    case "delete-confirm":
      return deleteAction(args);
    default:
      return data({ intent: "unknown" as const }, { status: 400 });
  }
}

export default function Settings() {
  const { t } = useTranslation();
  const actionData = useActionData<typeof action>();
  const loaded = useLoaderData<typeof loader>();
  const expertShown = loaded.expert !== null;
  const notifyShown = loaded.notify !== null;
  const location = useLocation();
  const isPatient =
    useRouteLoaderData<typeof dashboardLoader>("routes/dashboard")?.user.accountType === "Patient";
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("profile.settings")}</h1>
      <PictureSection
        serverError={actionData?.intent === "picture" ? actionData.error : undefined}
        serverValues={actionData?.intent === "picture" ? actionData.values : undefined}
      />
      <ProfileSection lastResult={actionData?.intent === "profile" ? actionData.result : undefined} />
      {expertShown && (
        <ExpertSection lastResult={actionData?.intent === "expert-details" ? actionData.result : undefined} />
      )}
      {notifyShown && (
        <NotifySection lastResult={actionData?.intent === "notify" ? actionData.result : undefined} />
      )}
      <CallSection lastResult={actionData?.intent === "calls" ? actionData.result : undefined} />
      <RemindersSection lastResult={actionData?.intent === "reminders" ? actionData.result : undefined} />
      {/* Remounted after each submission so a changed password never stays in the inputs. */}
      <PasswordSection
        key={location.key}
        lastResult={actionData?.intent === "password" ? actionData.result : undefined}
      />
      <TwoStepSection status={loaded.twoStep} />
      <SessionsSection />
      <MyDataLink />
      <DeleteSection
        confirmFromServer={actionData?.intent === "delete"}
        lastResult={actionData?.intent === "delete" ? actionData.result : undefined}
      />
      {/* Patients download everything the service keeps about them (a plain link). */}
      {isPatient && <DownloadMyData />}
    </div>
  );
}
