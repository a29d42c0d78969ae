import { useEffect, useState } from "react";
import { Link, useActionData, useFetcher, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useToast } from "~/components/Toaster";
import type { ReviewLabs } from "./route";
import { AddValue, ResultWords, type LabError, type LabReply } from "./LabFields";
import { LabHidden, ValueRow } from "./LabRow";

/**
 * "Values read from this report" (decisions 0084, 0090): each value the reader found, with its
 * unit, printed range, flag and doubt; the expert confirms every unchecked one read without doubt
 * in one step, and confirms, corrects or removes (and undoes a removal of) each in one step; shows
 * where it was read (the page with its box marked); adds one the reader missed. It comes before the
 * opinion form, beside the file, open while a value waits for its check. Plain forms and links: it
 * all works before the page's script has loaded; with it, the answers come as data and nothing
 * moves.
 */
export function LabPanel({ reportId, labs }: { reportId: string; labs: ReviewLabs }) {
  const { t } = useTranslation();
  const err = (useActionData() as LabError | undefined)?.lab;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "lab-add";
  const state =
    labs.reading === "queued" || labs.reading === "reading"
      ? t("labs.readingNow")
      : labs.reading === "not-lab"
        ? t("labs.notLab")
        : labs.reading === "failed"
          ? t("labs.readFailed")
          : labs.reading === null
            ? t("labs.notRead")
            : labs.values.length === 0
              ? t("labs.noneFound")
              : null;
  const count = (f: (v: ReviewLabs["values"][number]) => boolean) => labs.values.filter(f).length;
  const unchecked = count((v) => v.status === "read");
  // Open while a value waits for its check; folded once all are, so the opinion form comes up.
  // Decided once, when the page is drawn: it does not fold under the expert's hand.
  const [open] = useState(unchecked > 0);
  return (
    <section id="labs" className="card scroll-mt-24" aria-labelledby="labs-title" data-testid="lab-review">
      <details open={open} className="group/labs">
        <summary className="flex min-h-11 cursor-pointer list-none items-start gap-2 [&::-webkit-details-marker]:hidden">
          <span
            aria-hidden="true"
            className="mt-1 text-slate-600 transition-transform group-open/labs:rotate-90"
          >
            ▸
          </span>
          <span className="space-y-0.5">
            <h2 id="labs-title" className="text-lg font-semibold text-slate-900">
              {t("labs.reviewTitle")}
            </h2>
            <span className="block text-sm text-slate-700" data-testid="lab-counts">
              {state ??
                t("labs.counts", {
                  unchecked,
                  checked: count((v) => v.status !== "read" && v.status !== "removed"),
                  removed: count((v) => v.status === "removed"),
                })}
            </span>
          </span>
        </summary>
        <div className="mt-3 space-y-3">
          <p className="text-sm text-slate-700">{t("labs.reviewIntro")}</p>
          {labs.values.length > 0 && (
            <ConfirmAll ids={labs.bulk} unchecked={unchecked} doubtful={count((v) => v.doubt)} />
          )}
          {labs.values.length > 0 && (
            <ul className="@container space-y-2" aria-label={t("labs.reviewTitle")}>
              {labs.values.map((v) => (
                <ValueRow
                  key={v._id}
                  reportId={reportId}
                  v={v}
                  shown={labs.preview?.valueId === v._id}
                  words={labs.words}
                />
              ))}
            </ul>
          )}
          <ResultWords />
          {labs.catalogue ? (
            <AddValue catalogue={labs.catalogue} error={err?.target === "add" ? err : null} busy={busy} />
          ) : (
            <Link
              to={`/dashboard/add-review/${reportId}?add=1#labs-add`}
              className="link inline-block font-semibold"
              preventScrollReset
            >
              {t("labs.addTitle")}
            </Link>
          )}
        </div>
      </details>
    </section>
  );
}

/**
 * "Confirm all unchecked values" (decision 0090): the ones read without doubt, as listed on this
 * page (a value read since is never confirmed unseen). Its place keeps its height once done.
 */
function ConfirmAll({ ids, unchecked, doubtful }: { ids: string[]; unchecked: number; doubtful: number }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<LabReply>();
  const page = useActionData() as LabError | undefined;
  const navigation = useNavigation();
  const { show } = useToast();
  const reply = fetcher.data;
  const error = reply?.lab?.target === "all" ? reply.lab : page?.lab?.target === "all" ? page.lab : null;
  const busy =
    fetcher.state !== "idle" ||
    (navigation.state === "submitting" && navigation.formData?.get("intent") === "lab-confirm-all");
  useEffect(() => {
    if (fetcher.state !== "idle" || !reply?.done) return;
    show({ type: "success", message: reply.done.message });
    document.getElementById("labs-bulk-status")?.focus();
  }, [fetcher.state, reply, show]);
  return (
    <div className="space-y-1 rounded-md bg-slate-50 p-2" data-testid="lab-bulk">
      <div className="flex min-h-11 items-center">
        {ids.length > 0 ? (
          <fetcher.Form method="post" preventScrollReset className="w-full">
            <LabHidden intent="lab-confirm-all" />
            {ids.map((id) => (
              <input key={id} type="hidden" name="valueId" value={id} />
            ))}
            <button type="submit" className="btn-primary w-full text-sm sm:w-auto" disabled={busy}>
              {t("labs.confirmAll", { count: ids.length })}
            </button>
          </fetcher.Form>
        ) : (
          <p id="labs-bulk-status" tabIndex={-1} className="text-sm font-semibold text-slate-800">
            {unchecked > 0 ? t("labs.onlyDoubtLeft") : t("labs.allChecked")}
          </p>
        )}
      </div>
      {doubtful > 0 && (
        <p className="text-sm text-amber-900">{t("labs.doubtNotInBulk", { count: doubtful })}</p>
      )}
      {error && (
        <p role="alert" className="text-sm font-semibold text-red-700">
          {error.message}
        </p>
      )}
    </div>
  );
}

/** The page where a value was read, its line marked: shown in the report's column, beside the list. */
export function LabPreview({
  reportId,
  preview,
}: {
  reportId: string;
  preview: NonNullable<ReviewLabs["preview"]>;
}) {
  const { t } = useTranslation();
  const [x, y, w, h] = preview.box;
  const pct = (n: number) => `${(n * 100).toFixed(2)}%`;
  return (
    <figure id="labs-preview" className="card space-y-2 p-3" data-testid="lab-preview">
      <figcaption className="flex flex-wrap items-center justify-between gap-2 text-sm font-semibold text-slate-900">
        <span>{t("labs.previewTitle", { name: preview.name, page: preview.page })}</span>
        <span className="flex gap-4 font-normal">
          {/* On a phone the page is above the list: the way back to the row, without a reload. */}
          <a href={`#lab-${encodeURIComponent(preview.valueId)}`} className="link lg:hidden">
            {t("labs.backToValue")}
          </a>
          <Link
            to={`/dashboard/add-review/${reportId}#lab-${encodeURIComponent(preview.valueId)}`}
            className="link"
            preventScrollReset
          >
            {t("labs.hidePreview")}
          </Link>
        </span>
      </figcaption>
      <div className="relative overflow-hidden rounded-md border border-slate-300 bg-white">
        <img
          src={preview.src}
          alt={t("labs.previewAlt", { name: preview.name, page: preview.page })}
          className="block h-auto w-full"
        />
        {/* Where the value was read: its line's box, as fractions of the page. */}
        <span
          className="pointer-events-none absolute rounded-sm border-2 border-rose-600 bg-yellow-300/40"
          style={{ left: pct(x), top: pct(y), width: pct(w), height: pct(h) }}
          data-testid="lab-highlight"
          aria-hidden="true"
        />
      </div>
    </figure>
  );
}
