import { Form, Link, useActionData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import type { ReviewLabs } from "./route";
import { AddValue, ValueFields, type LabError } from "./LabFields";

type LabValue = ReviewLabs["values"][number];

const STATUS_STYLE: Record<LabValue["status"], string> = {
  read: "bg-amber-100 text-amber-900",
  confirmed: "bg-emerald-100 text-emerald-900",
  corrected: "bg-sky-100 text-sky-900",
  added: "bg-sky-100 text-sky-900",
  removed: "bg-slate-200 text-slate-700",
};

/**
 * "Values read from this report" (decision 0084): each value the reader found, with its unit,
 * printed range and flag; the expert confirms, corrects or removes it in one step, shows where it
 * was read (the page with its box marked), and adds one the reader missed. Plain forms and links:
 * it all works before the page's script has loaded.
 */
export function LabPanel({ reportId, labs }: { reportId: string; labs: ReviewLabs }) {
  const { t } = useTranslation();
  const err = (useActionData() as LabError | undefined)?.lab;
  const navigation = useNavigation();
  const busy =
    navigation.state === "submitting" && String(navigation.formData?.get("intent")).startsWith("lab-");
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
  return (
    <section id="labs" className="card space-y-3" aria-labelledby="labs-title" data-testid="lab-review">
      <h2 id="labs-title" className="text-lg font-semibold text-slate-900">
        {t("labs.reviewTitle")}
      </h2>
      <p className="text-sm text-slate-700">{t("labs.reviewIntro")}</p>
      {state && <p className="rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-800">{state}</p>}
      {labs.values.length > 0 && (
        <ul className="divide-y divide-slate-200" aria-label={t("labs.reviewTitle")}>
          {labs.values.map((v) => (
            <ValueRow
              key={v._id}
              reportId={reportId}
              v={v}
              shown={labs.preview?.valueId === v._id}
              error={err?.target === v._id ? err : null}
              busy={busy}
            />
          ))}
        </ul>
      )}
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
    </section>
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
        <Link to={`/dashboard/add-review/${reportId}#labs`} className="link font-normal" preventScrollReset>
          {t("labs.hidePreview")}
        </Link>
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

function ValueRow({
  reportId,
  v,
  shown,
  error,
  busy,
}: {
  reportId: string;
  v: LabValue;
  shown: boolean;
  error: NonNullable<LabError["lab"]> | null;
  busy: boolean;
}) {
  const { t } = useTranslation();
  const statusLabel = {
    read: t("labs.statusRead"),
    confirmed: t("labs.statusConfirmed"),
    corrected: t("labs.statusCorrected"),
    added: t("labs.statusAdded"),
    removed: t("labs.statusRemoved"),
  }[v.status];
  const removed = v.status === "removed";
  const unit = v.shownUnit;
  return (
    <li id={`lab-${v._id}`} className="space-y-1 py-2" data-testid="lab-value" data-status={v.status}>
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <p className={removed ? "text-slate-500 line-through" : "text-slate-900"}>
          <span className="font-semibold">{v.name}</span>{" "}
          <span className="font-mono font-semibold" data-testid="lab-reading">
            {v.printedValue} {unit}
          </span>
        </p>
        {/* Where it stands against its printed range: the measure's judgement (decision 0088). */}
        {(v.judgement === "above" || v.judgement === "below") && (
          <span
            className="rounded bg-rose-100 px-1.5 py-0.5 text-xs font-semibold text-rose-900"
            data-testid="lab-flag"
          >
            {v.judgement === "above" ? t("labs.flagH") : t("labs.flagL")}
          </span>
        )}
        {v.judgement === "within" && (
          <span
            className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-semibold text-slate-700"
            data-testid="lab-flag"
          >
            {t("labs.flagN")}
          </span>
        )}
        <span className={`ml-auto rounded px-2 py-0.5 text-xs font-semibold ${STATUS_STYLE[v.status]}`}>
          {statusLabel}
        </span>
      </div>
      <p className="text-sm text-slate-700">
        {v.printedName !== v.name && <>“{v.printedName}” · </>}
        {t("labs.printedRange")}: {v.rangeText ?? t("labs.noRangePrinted")}
        {v.status === "read" && v.confidence != null && v.confidence < 0.9 && (
          <span className="block font-semibold text-amber-900">{t("labs.doubt")}</span>
        )}
      </p>
      {error && (
        <p role="alert" className="text-sm font-semibold text-red-700">
          {error.message}
        </p>
      )}
      {!removed && (
        <div className="flex flex-wrap items-center gap-2">
          {v.page && v.box && !shown && (
            <Link
              to={`/dashboard/add-review/${reportId}?value=${encodeURIComponent(v._id)}#labs-preview`}
              className="btn-secondary px-3 py-1 text-sm"
              preventScrollReset
              aria-label={`${t("labs.showOnReport")}: ${v.name}`}
            >
              {t("labs.showOnReport")}
            </Link>
          )}
          {v.status === "read" && (
            <Form method="post" preventScrollReset>
              <input type="hidden" name="intent" value="lab-check" />
              <input type="hidden" name="valueId" value={v._id} />
              <button
                type="submit"
                name="action"
                value="confirm"
                className="btn-primary px-3 py-1 text-sm"
                disabled={busy}
                aria-label={`${t("labs.confirm")}: ${v.name} ${v.printedValue} ${unit}`}
              >
                {t("labs.confirm")}
              </button>
            </Form>
          )}
          <Form method="post" preventScrollReset>
            <input type="hidden" name="intent" value="lab-check" />
            <input type="hidden" name="valueId" value={v._id} />
            <button
              type="submit"
              name="action"
              value="remove"
              className="btn-secondary px-3 py-1 text-sm"
              disabled={busy}
              aria-label={`${t("labs.remove")}: ${v.name}`}
            >
              {t("labs.remove")}
            </button>
          </Form>
          <details
            className="open:basis-full"
            open={!!error?.fieldErrors && Object.keys(error.fieldErrors).length > 0}
          >
            <summary className="flex min-h-11 cursor-pointer items-center px-1 text-sm font-semibold text-sky-800">
              {t("labs.correct")}
              <span className="sr-only">: {v.name}</span>
            </summary>
            <Form method="post" className="mt-2 space-y-2" preventScrollReset>
              <input type="hidden" name="intent" value="lab-check" />
              <input type="hidden" name="valueId" value={v._id} />
              <input type="hidden" name="action" value="correct" />
              <ValueFields
                prefix={`lab-${v._id}`}
                v={{ value: v.printedValue, unit, range: v.rangeText ?? "" }}
                error={error}
              />
              <button type="submit" className="btn-primary px-3 py-1 text-sm" disabled={busy}>
                {t("labs.saveCorrection")}
              </button>
            </Form>
          </details>
        </div>
      )}
    </li>
  );
}
