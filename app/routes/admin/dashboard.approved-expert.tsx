import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { SPECIALTY_KEYS, type Specialty } from "~/schemas/specialties";
import { useListLoading } from "~/components/reports/useListLoading";
import { Avatar } from "~/components/Avatar";
import { EmptyState } from "~/components/reports/EmptyState";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { Pager } from "~/components/reports/Pager";
import { contactOf, roleKey } from "~/components/reports/people";
import { pageError, pageInfo, screenPage } from "~/web/screen.server";
import { listApprovedExperts, type ApiUser } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireRole } from "~/web/auth.server";

/** The domain already leaves a colleague's e-mail and phone empty for experts. */
function cardOf(u: ApiUser) {
  return {
    _id: u._id,
    firstName: u.firstName,
    lastName: u.lastName,
    email: u.email,
    image: u.image,
    contact: contactOf(u),
    about: u.additionalDetails.about,
    accountType: u.accountType,
    specialties: u.expertDetails?.specialties ?? [],
    registrationNumber: u.expertDetails?.registrationNumber ?? "",
    approvedAt: u.expertDetails?.approvedAt ?? null,
    approvedBy: u.expertDetails?.approvedBy
      ? `${u.expertDetails.approvedBy.firstName} ${u.expertDetails.approvedBy.lastName}`.trim()
      : null,
  };
}

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Expert", "Admin");
  let result: Awaited<ReturnType<typeof listApprovedExperts>>;
  try {
    result = await listApprovedExperts(actor, screenPage(request));
  } catch (err) {
    pageError(err);
  }
  const { t } = await tFor(request);
  return {
    title: t("experts.approvedTitle"),
    items: result.items.map(cardOf),
    pagination: pageInfo(result),
    isAdmin: actor.accountType === "Admin",
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function ApprovedExperts() {
  const { t } = useTranslation();
  const { items, pagination, isAdmin } = useLoaderData<typeof loader>();
  const loading = useListLoading();
  const dates = useDateText();
  const na = t("reports.notAvailable");
  return (
    <section aria-busy={loading || undefined}>
      <PageHeader title={t("experts.approvedTitle")} intro={t("experts.approvedIntro")} />
      {loading && (
        <p role="status" className="mb-3 font-semibold text-brand-800">
          {t("common.loading")}
        </p>
      )}
      {items.length === 0 ? (
        <EmptyState message={t("experts.noApproved")} />
      ) : (
        <ul className={`grid gap-4 sm:grid-cols-2 ${loading ? "opacity-60" : ""}`}>
          {items.map((e) => (
            <li key={e._id} className="card flex items-start gap-4" data-testid="expert-card">
              <Avatar firstName={e.firstName} lastName={e.lastName} image={e.image} size={56} />
              <div className="min-w-0 flex-1">
                <h2 className="text-lg font-bold break-words text-slate-900">
                  {`${e.firstName} ${e.lastName}`.trim() || na}
                </h2>
                <dl className="mt-1 space-y-1 text-sm">
                  {isAdmin && (
                    <>
                      <div>
                        <dt className="sr-only">{t("experts.email")}</dt>
                        <dd>
                          <a href={`mailto:${e.email}`} className="break-all text-slate-800 hover:underline">
                            {e.email}
                          </a>
                        </dd>
                      </div>
                      <div className="flex gap-1">
                        <dt className="font-semibold text-slate-600">{t("experts.contact")}:</dt>
                        <dd className="tabular-nums">{e.contact || na}</dd>
                      </div>
                    </>
                  )}
                  {e.about && (
                    <div className="flex gap-1">
                      <dt className="font-semibold text-slate-600">{t("experts.about")}:</dt>
                      <dd className="break-words">{e.about}</dd>
                    </div>
                  )}
                  <div className="flex gap-1">
                    <dt className="font-semibold text-slate-600">{t("experts.accountType")}:</dt>
                    <dd>{t(roleKey(e.accountType))}</dd>
                  </div>
                  {e.specialties.length > 0 && (
                    <div className="flex gap-1">
                      <dt className="font-semibold text-slate-600">{t("experts.specialties")}:</dt>
                      <dd>{e.specialties.map((x) => t(SPECIALTY_KEYS[x as Specialty] ?? x)).join(", ")}</dd>
                    </div>
                  )}
                  {e.registrationNumber && (
                    <div className="flex gap-1">
                      <dt className="font-semibold text-slate-600">{t("opinion.regNo")}</dt>
                      <dd className="break-all">{e.registrationNumber}</dd>
                    </div>
                  )}
                  {isAdmin && e.approvedBy && e.approvedAt && (
                    <div>
                      <dt className="sr-only">{t("audit.actions.expertApprove")}</dt>
                      <dd className="text-slate-600">
                        {t("experts.approvedBy", { name: e.approvedBy, date: dates.day(e.approvedAt) })}
                      </dd>
                    </div>
                  )}
                </dl>
              </div>
            </li>
          ))}
        </ul>
      )}
      <Pager pagination={pagination} />
    </section>
  );
}
