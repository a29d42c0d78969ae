import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { Avatar } from "~/components/Avatar";
import { getProfile, expertDetailsFor, avatarUrl } from "~/domain/accounts/index.server";
import { intlTag } from "~/i18n/config";
import { tFor } from "~/i18n/i18n.server";
import { GENDER_LABEL_KEYS } from "~/schemas/limits";
import { site } from "~/site";
import { requireActor } from "~/web/auth.server";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { user, profile } = await getProfile(actor.id);
  const { t } = await tFor(request);
  // A rejected expert reads why here too, and what to do next.
  const expert =
    user.accountType === "Expert" && !user.approved
      ? (await expertDetailsFor([user.id])).get(user.id)
      : undefined;
  return {
    title: t("profile.myProfile"),
    rejectionReason: expert?.rejectedAt ? (expert.rejectionReason ?? "") : null,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    image: avatarUrl(user.image),
    about: profile?.about ?? null,
    gender: profile?.gender ?? null,
    dateOfBirth: profile?.dateOfBirth ?? null,
    contactNumber: profile?.contactNumber || user.contactNumber || null,
  };
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [
  ...(matches.find((m) => m.id === "root")?.meta ?? []).filter((m) => !("title" in m)),
  { title: data ? `${data.title} | ${site.productName}` : site.productName },
];

/** A yyyy-mm-dd date as dd MMM yyyy in the current language (a calendar date: no time zone shift). */
function formatDate(iso: string, language: string) {
  const date = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(intlTag(language), {
    day: "2-digit",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  }).format(date);
}

function EditLink({ what }: { what: string }) {
  const { t } = useTranslation();
  return (
    <Link to="/dashboard/settings" className="btn-primary shrink-0 px-4">
      <svg
        viewBox="0 0 24 24"
        className="h-4 w-4"
        aria-hidden="true"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      >
        <path d="M4 20h4L19 9l-4-4L4 16zM13.5 6.5l4 4" strokeLinejoin="round" />
      </svg>
      {t("profile.edit")}
      <span className="sr-only"> {what}</span>
    </Link>
  );
}

function Detail({ label, value, empty }: { label: string; value: string | null; empty?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-sm font-semibold text-slate-600">{label}</dt>
      <dd
        className={`mt-0.5 break-words ${value ? "font-semibold text-slate-900" : "text-slate-500 italic"}`}
      >
        {value || empty || "—"}
      </dd>
    </div>
  );
}

export default function MyProfile() {
  const p = useLoaderData<typeof loader>();
  const { t, i18n } = useTranslation();
  const fullName = `${p.firstName} ${p.lastName}`.trim();
  const gender =
    p.gender && p.gender in GENDER_LABEL_KEYS
      ? t(GENDER_LABEL_KEYS[p.gender as keyof typeof GENDER_LABEL_KEYS])
      : p.gender;
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{t("profile.myProfile")}</h1>

      {p.rejectionReason !== null && (
        <section
          role="alert"
          className="rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-red-900"
          aria-labelledby="rejected-heading"
        >
          <h2 id="rejected-heading" className="font-bold">
            {t("profile.rejectedTitle")}
          </h2>
          <p className="mt-1 break-words">{t("dashboard.rejectedNotice", { reason: p.rejectionReason })}</p>
          <Link to="/dashboard/settings#expert-details-heading" className="btn-primary mt-3 inline-flex px-4">
            {t("profile.rejectedAction")}
          </Link>
        </section>
      )}

      <section
        className="card flex flex-col items-start gap-4 sm:flex-row sm:items-center"
        aria-label={fullName}
      >
        <Avatar firstName={p.firstName} lastName={p.lastName} image={p.image} size={78} />
        <div className="min-w-0 flex-1">
          <h2 className="text-xl font-bold break-words text-slate-900">{fullName}</h2>
          <p className="break-words text-slate-600">{p.email}</p>
        </div>
        <EditLink what={fullName} />
      </section>

      <section className="card" aria-labelledby="about-heading">
        <div className="flex items-center justify-between gap-4">
          <h2 id="about-heading" className="text-lg font-bold text-slate-900">
            {t("profile.about")}
          </h2>
          <EditLink what={t("profile.about")} />
        </div>
        <p
          className={`mt-3 max-w-prose break-words whitespace-pre-line ${p.about ? "text-slate-800" : "text-slate-500 italic"}`}
        >
          {p.about || t("profile.aboutPlaceholder")}
        </p>
      </section>

      <section className="card" aria-labelledby="details-heading">
        <div className="flex items-center justify-between gap-4">
          <h2 id="details-heading" className="text-lg font-bold text-slate-900">
            {t("profile.personalDetails")}
          </h2>
          <EditLink what={t("profile.personalDetails")} />
        </div>
        <dl className="mt-4 grid gap-x-8 gap-y-5 sm:grid-cols-2">
          <Detail label={t("profile.firstName")} value={p.firstName} />
          <Detail label={t("profile.lastName")} value={p.lastName} />
          <Detail label={t("profile.email")} value={p.email} />
          <Detail label={t("profile.phone")} value={p.contactNumber} empty={t("profile.addPhone")} />
          <Detail label={t("profile.gender")} value={gender} empty={t("profile.addGender")} />
          <Detail
            label={t("profile.dob")}
            value={p.dateOfBirth ? formatDate(p.dateOfBirth, i18n.language) : null}
            empty={t("profile.addDob")}
          />
        </dl>
      </section>
    </div>
  );
}
