import { Form } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import type { ReviewReport } from "./route";

/** A report nobody holds: the expert claims it first (claimAction); held by another: who. */
export function ClaimPanel({ report, busy }: { report: ReviewReport; busy: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="card space-y-3" data-testid="claim-panel">
      {report.claimedBy ? (
        <p role="status" className="font-semibold text-sky-900">
          {t("reports.otherReviewing", { name: report.claimedBy })}
        </p>
      ) : (
        <>
          <p>{t("reports.claimFirst")}</p>
          <Form method="post">
            <input type="hidden" name="intent" value="claim" />
            <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
              {t("reports.startReview")}
            </button>
          </Form>
        </>
      )}
    </div>
  );
}

/** The expert holds the report until a time; releasing it gives it back to the queue (claimAction). */
export function ReleaseBar({ report, busy }: { report: ReviewReport; busy: boolean }) {
  const { t } = useTranslation();
  const dates = useDateText();
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-sky-200 bg-sky-50 px-4 py-3">
      <p role="status" className="text-sky-950">
        {t("reports.youAreReviewing", {
          time: report.claimUntil ? dates.dateTime(report.claimUntil) : "",
        })}
      </p>
      <Form method="post">
        <input type="hidden" name="intent" value="release" />
        <button type="submit" className="btn-secondary" disabled={busy} aria-describedby="release-hint">
          {t("reports.release")}
        </button>
        <span id="release-hint" className="sr-only">
          {t("reports.releaseHint")}
        </span>
      </Form>
    </div>
  );
}
