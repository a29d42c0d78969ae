import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { EmptyState } from "~/components/reports/EmptyState";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { StatusPill } from "~/components/rights/StatusPill";
import { clearTakeOver, listTakeOvers, undoTakeOver } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { useTranslation } from "~/i18n/useTranslation";
import { requireRole } from "~/web/auth.server";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithError, redirectWithSuccess } from "~/web/toast.server";

/**
 * Admin: completed take-overs (decision 0055) — by default those to review (reported "this was not
 * me", started by a health worker since suspended, moved or declined, or of the last 7 days) — each
 * with Undo (within 7 days) and "Mark as reviewed", as plain POSTs (no JavaScript needed).
 */
const HERE = "/dashboard/take-overs";

const FLAG_KEYS: Record<string, string> = {
  reported: "family.flag_reported",
  starter_suspended: "family.flag_starter_suspended",
  starter_moved: "family.flag_starter_moved",
  starter_declined: "family.flag_starter_declined",
};

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const status = new URL(request.url).searchParams.get("status") === "all" ? "all" : "review";
  return { title: t("family.takeOversTitle"), status, items: await listTakeOvers(actor, { status }) };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  const form = await readForm(request);
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("takeOverId") ?? "").slice(0, 100);
  const ip = clientOf(context).ip;
  try {
    if (intent === "undo") {
      await undoTakeOver(actor, id, ip);
      return redirectWithSuccess(HERE, t("family.takeOverUndoneDone"));
    }
    if (intent === "clear") {
      await clearTakeOver(actor, id, ip);
      return redirectWithSuccess(HERE, t("family.takeOverClearedDone"));
    }
  } catch (err) {
    return toastFailure(err, t, HERE);
  }
  return redirectWithError(HERE, t("family.takeOverActionUnknown"));
}

export default function TakeOvers() {
  const { t } = useTranslation();
  const { items, status } = useLoaderData<typeof loader>();
  const { dateTime } = useDateText();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="max-w-3xl">
      <PageHeader title={t("family.takeOversTitle")} intro={t("family.takeOversIntro")} />
      <nav className="mb-5 flex gap-4" aria-label={t("family.takeOversTitle")}>
        <a href={HERE} className="link" aria-current={status === "review" ? "page" : undefined}>
          {t("family.takeOversFilterReview")}
        </a>
        <a href={`${HERE}?status=all`} className="link" aria-current={status === "all" ? "page" : undefined}>
          {t("family.takeOversFilterAll")}
        </a>
      </nav>
      {items.length === 0 ? (
        <EmptyState message={t("family.takeOversEmpty")} />
      ) : (
        <ul className="space-y-4">
          {items.map((o) => (
            <li key={o._id} className="card" data-testid="take-over-row">
              <p className="font-semibold">
                {t("family.takeOverRow", {
                  name: o.patient.name,
                  shortId: o.patient.shortId ?? "—",
                  date: dateTime(o.createdAt),
                })}
              </p>
              {o.startedBy && <p>{t("family.takeOverStartedBy", { name: o.startedBy.name })}</p>}
              <div className="mt-2 flex flex-wrap gap-2">
                {o.flag && <StatusPill tone="amber">{t(FLAG_KEYS[o.flag])}</StatusPill>}
                {o.undoneAt && <StatusPill tone="grey">{t("family.takeOverUndoneStatus")}</StatusPill>}
                {o.reviewedAt && !o.undoneAt && (
                  <StatusPill tone="green">{t("family.takeOverReviewedStatus")}</StatusPill>
                )}
              </div>
              {!o.undoneAt && (
                <div className="mt-3 flex flex-wrap gap-3">
                  {o.canUndo && (
                    <Form method="post">
                      <input type="hidden" name="takeOverId" value={o._id} />
                      <button type="submit" name="intent" value="undo" className="btn-danger" disabled={busy}>
                        {t("family.takeOverUndo")}
                      </button>
                    </Form>
                  )}
                  {!o.reviewedAt && (
                    <Form method="post">
                      <input type="hidden" name="takeOverId" value={o._id} />
                      <button
                        type="submit"
                        name="intent"
                        value="clear"
                        className="btn-secondary"
                        disabled={busy}
                      >
                        {t("family.takeOverClear")}
                      </button>
                    </Form>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
