import { useEffect, useRef } from "react";
import { Link, useActionData, useFetcher, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useHydrated } from "~/components/reports/useHydrated";
import { useToast } from "~/components/Toaster";
import type { ReviewLabs } from "./route";
import { ValueFields, type LabError, type LabReply } from "./LabFields";

type LabValue = ReviewLabs["values"][number];

const STATUS_STYLE: Record<LabValue["status"], string> = {
  read: "bg-amber-100 text-amber-900",
  confirmed: "bg-emerald-100 text-emerald-900",
  corrected: "bg-sky-100 text-sky-900",
  added: "bg-sky-100 text-sky-900",
  removed: "bg-slate-200 text-slate-700",
};
const EDGE: Record<LabValue["status"], string> = {
  read: "border-amber-400",
  confirmed: "border-emerald-500",
  corrected: "border-sky-500",
  added: "border-sky-500",
  removed: "border-slate-300",
};

/** The hidden fields every lab form of a row sends; `script` asks for the answer as data. */
export function LabHidden({ intent, valueId }: { intent: string; valueId?: string }) {
  const hydrated = useHydrated();
  return (
    <>
      <input type="hidden" name="intent" value={intent} />
      {valueId && <input type="hidden" name="valueId" value={valueId} />}
      {hydrated && <input type="hidden" name="script" value="1" />}
    </>
  );
}

/** After a Confirm, its button is gone: the next unchecked value's Confirm takes the focus. */
function focusNextConfirm(row: HTMLElement | null) {
  const active = document.activeElement;
  if (active && active !== document.body && !row?.contains(active)) return; // she is elsewhere
  const all = [...document.querySelectorAll<HTMLButtonElement>("[data-lab-confirm]")];
  const next =
    all.find((b) => row && row.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) ?? all[0];
  (next ?? document.getElementById("labs-bulk-status"))?.focus();
}

/**
 * One value (decision 0090): its reading, printed range, flag, doubt and status, then four places
 * that never change: Confirm, Remove (Undo removal once removed), Correct, Show on page. A control
 * that does not apply leaves its place empty, and the row keeps its height, so after a click
 * nothing moves under the finger, in this row or the ones below.
 */
export function ValueRow({
  reportId,
  v,
  shown,
  words,
}: {
  reportId: string;
  v: LabValue;
  shown: boolean;
  /** The clinic's corrections of the lab words (decision 0108): the flags have no places to fill. */
  words: Record<string, string>;
}) {
  const { t } = useTranslation();
  const say = (key: string) => words[key] ?? t(key);
  const fetcher = useFetcher<LabReply>();
  const navigation = useNavigation();
  const page = useActionData() as LabError | undefined;
  const { show } = useToast();
  const row = useRef<HTMLLIElement>(null);
  const fix = useRef<HTMLInputElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const reply = fetcher.data;
  const error = reply?.lab?.target === v._id ? reply.lab : page?.lab?.target === v._id ? page.lab : null;
  const busy =
    fetcher.state !== "idle" ||
    (navigation.state === "submitting" && navigation.formData?.get("valueId") === v._id);

  useEffect(() => {
    if (fetcher.state !== "idle" || !reply?.done) return;
    show({ type: "success", message: reply.done.message });
    if (reply.done.action === "confirm") focusNextConfirm(row.current);
    // Remove and its undo are one button, disabled while it worked: the focus goes back to it.
    if (reply.done.action === "remove" || reply.done.action === "restore") {
      const active = document.activeElement;
      if (!active || active === document.body || row.current?.contains(active)) toggle.current?.focus();
    }
    if (reply.done.action === "correct" && fix.current) fix.current.checked = false;
  }, [fetcher.state, reply, show]);

  const statusLabel = {
    read: t("labs.statusRead"),
    confirmed: t("labs.statusConfirmed"),
    corrected: t("labs.statusCorrected"),
    added: t("labs.statusAdded"),
    removed: t("labs.statusRemoved"),
  }[v.status];
  const removed = v.status === "removed";
  const unit = v.shownUnit;
  // A text result ("Reactive"): its word, judged against the printed reference (decision 0098).
  const text = v.valueText !== null;
  const reading = text ? v.valueText : `${v.printedValue} ${unit}`;
  const slot = "min-h-11 w-full px-2 py-1 text-sm";
  const empty = <span className="block min-h-11" aria-hidden="true" />;
  return (
    <li
      ref={row}
      id={`lab-${v._id}`}
      className={`group/row scroll-mt-24 space-y-1 border-l-4 py-2 pl-3 ${EDGE[v.status]}`}
      data-testid="lab-value"
      data-status={v.status}
    >
      <div className="flex items-start justify-between gap-2">
        <p className={removed ? "text-slate-500 line-through" : "text-slate-900"}>
          <span className="font-semibold">{v.name}</span>
          {v.printedName !== v.name && <span className="text-sm text-slate-700"> “{v.printedName}”</span>}
        </p>
        <span
          className={`min-w-[6.5rem] max-w-[45%] shrink-0 rounded px-2 py-0.5 text-center text-xs font-semibold wrap-anywhere ${STATUS_STYLE[v.status]}`}
          data-testid="lab-status"
        >
          {statusLabel}
        </span>
      </div>
      <p className="flex flex-wrap items-baseline gap-x-2 text-sm text-slate-800">
        <span className="font-mono text-base font-semibold text-slate-900" data-testid="lab-reading">
          {reading}
        </span>
        {/* Where it stands against its printed range: the measure's judgement (decision 0088). */}
        {(v.judgement === "above" || v.judgement === "below") && (
          <span
            className="rounded bg-rose-100 px-1.5 py-0.5 text-xs font-semibold text-rose-900"
            data-testid="lab-flag"
          >
            {v.judgement === "above" ? say("labs.flagH") : say("labs.flagL")}
          </span>
        )}
        {v.judgement === "outside" && (
          <span
            className="rounded bg-rose-100 px-1.5 py-0.5 text-xs font-semibold text-rose-900"
            data-testid="lab-flag"
          >
            {say("labs.flagA")}
          </span>
        )}
        {v.judgement === "within" && (
          <span
            className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-semibold text-slate-700"
            data-testid="lab-flag"
          >
            {text ? say("labs.flagSame") : say("labs.flagN")}
          </span>
        )}
        <span data-testid="lab-range">
          {text ? t("labs.printedReference") : say("labs.printedRange")}:
          {!v.parts && ` ${v.rangeText ?? t("labs.noRangePrinted")}`}
        </span>
      </p>
      {/* A range in parts, whole, a part a line: the one for this patient marked in words (0105). */}
      {v.parts && (
        <ul className="space-y-0.5 text-sm text-slate-800" data-testid="lab-range-parts">
          {v.parts.map((p) => (
            <li key={p.part} className={p.part === v.rangePart ? "font-semibold text-slate-900" : undefined}>
              {p.printed}
              {p.part === v.rangePart && (
                <span className="ml-2 rounded bg-sky-100 px-1.5 py-0.5 text-xs font-semibold whitespace-nowrap text-sky-900">
                  {t("labs.rangeForPatient")}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {v.parts && v.rangeLow === null && v.rangeHigh === null && (
        <p className="text-sm text-slate-800" data-testid="lab-range-none">
          {t("labs.rangeNoPart")}
        </p>
      )}
      {/* Said whatever the status: a line that came and went would move the rows below. */}
      {v.doubt && <p className="text-sm font-semibold text-amber-900">{t("labs.doubt")}</p>}
      {error && (
        <p role="alert" className="text-sm font-semibold text-red-700">
          {error.message}
        </p>
      )}
      <div className="grid grid-cols-2 gap-2 @md:grid-cols-4">
        {v.status === "read" ? (
          <fetcher.Form method="post" preventScrollReset className="flex">
            <LabHidden intent="lab-check" valueId={v._id} />
            <button
              type="submit"
              name="action"
              value="confirm"
              className={`btn-primary ${slot}`}
              disabled={busy}
              data-lab-confirm=""
              aria-label={`${t("labs.confirm")}: ${v.name} ${reading}`}
            >
              {t("labs.confirm")}
            </button>
          </fetcher.Form>
        ) : (
          empty
        )}
        {/* One button that becomes its own undo: the same element, so focus stays on it. */}
        <fetcher.Form method="post" preventScrollReset className="flex">
          <LabHidden intent="lab-check" valueId={v._id} />
          <button
            ref={toggle}
            type="submit"
            name="action"
            value={removed ? "restore" : "remove"}
            className={`btn-secondary ${slot}`}
            disabled={busy}
            aria-label={`${removed ? t("labs.undoRemove") : t("labs.remove")}: ${v.name}`}
          >
            {removed ? t("labs.undoRemove") : t("labs.remove")}
          </button>
        </fetcher.Form>
        {removed ? (
          empty
        ) : (
          // A disclosure without script: the box opens the form below the controls, not among them.
          <label
            className={`btn-secondary ${slot} cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-sky-700 has-[:checked]:bg-slate-100`}
          >
            <input
              ref={fix}
              type="checkbox"
              className="fix sr-only"
              defaultChecked={!!error && Object.keys(error.fieldErrors).length > 0}
              aria-controls={`lab-fix-${v._id}`}
            />
            {t("labs.correct")}
            <span className="sr-only">: {v.name}</span>
          </label>
        )}
        {v.page && v.box && !shown ? (
          <Link
            to={`/dashboard/add-review/${reportId}?value=${encodeURIComponent(v._id)}#labs-preview`}
            className={`btn-secondary ${slot}`}
            preventScrollReset
            aria-label={`${t("labs.showOnReport")}: ${v.name}`}
          >
            {t("labs.showOnReport")}
          </Link>
        ) : (
          empty
        )}
      </div>
      {/* Always there (hidden unless its box is ticked): the row's last child never changes. */}
      <fetcher.Form
        method="post"
        id={`lab-fix-${v._id}`}
        className="mt-2 hidden space-y-2 group-has-[.fix:checked]/row:block"
        preventScrollReset
      >
        <LabHidden intent="lab-check" valueId={v._id} />
        <input type="hidden" name="action" value="correct" />
        <ValueFields
          prefix={`lab-${v._id}`}
          v={{ value: text ? (v.valueText ?? "") : v.printedValue, unit, range: v.rangeText ?? "" }}
          error={error}
          kind={text ? "text" : "number"}
        />
        <button type="submit" className="btn-primary px-3 py-1 text-sm" disabled={busy}>
          {t("labs.saveCorrection")}
        </button>
      </fetcher.Form>
    </li>
  );
}
