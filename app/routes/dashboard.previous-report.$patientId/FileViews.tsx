import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { EyeIcon } from "~/components/ui/Icon";
import type { Card } from "./cards.server";

const VIEWS_SHOWN = 3;

type TrailEntry =
  | ({ via: "account" } & Card["fileViews"][number])
  | ({ via: "link" } & Card["linkOpens"][number]);

/** Who opened the report: experts and admins by name, and openings through the patient's sharing links */
export function FileViews({
  views: accounts,
  opens,
}: {
  views: Card["fileViews"];
  opens: Card["linkOpens"];
}) {
  const { t } = useTranslation();
  const dates = useDateText();
  const views: TrailEntry[] = [
    ...accounts.map((v) => ({ via: "account" as const, ...v })),
    ...opens.map((o) => ({ via: "link" as const, ...o })),
  ].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  if (views.length === 0) return null;
  const line = (v: TrailEntry) =>
    v.via === "link"
      ? v.label
        ? t("share.openedViaFor", { label: v.label, date: dates.dateTime(v.at) })
        : t("share.openedVia", { date: dates.dateTime(v.at) })
      : t(v.viewerAccountType === "Expert" ? "audit.viewedByExpert" : "audit.viewedByAdmin", {
          name: `${v.viewerFirstName} ${v.viewerLastName}`.trim(),
          date: dates.dateTime(v.at),
        });
  const first = views.slice(0, VIEWS_SHOWN);
  const rest = views.slice(VIEWS_SHOWN);
  return (
    <div className="mt-3 text-sm text-slate-600" data-testid="file-views">
      <p className="sr-only">{t("audit.fileViewsTitle")}</p>
      <ul className="space-y-0.5">
        {first.map((v, i) => (
          <li key={`${v.at}-${i}`} className="flex gap-1.5">
            <EyeIcon className="mt-0.5 h-4 w-4 shrink-0" />
            <span>{line(v)}</span>
          </li>
        ))}
      </ul>
      {rest.length > 0 && (
        <details className="mt-1">
          <summary className="link cursor-pointer">{t("audit.allViews", { count: views.length })}</summary>
          <ul className="mt-1 space-y-0.5">
            {rest.map((v, i) => (
              <li key={`${v.at}-${i}`}>{line(v)}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
