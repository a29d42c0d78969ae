import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { EyeIcon } from "~/components/ui/Icon";
import { foldRepeats } from "~/domain/platform/repeats";
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
  const sorted: TrailEntry[] = [
    ...accounts.map((v) => ({ via: "account" as const, ...v })),
    ...opens.map((o) => ({ via: "link" as const, ...o })),
  ].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  // One minute of reading is one line: "Viewed by Dr X, 3 times, 6:12 pm" (decision 0073).
  const views = foldRepeats(sorted, (a, b) => {
    if (a.via === "link") return b.via === "link" && a.linkId === b.linkId;
    return (
      b.via === "account" &&
      a.viewerAccountType === b.viewerAccountType &&
      a.viewerFirstName === b.viewerFirstName &&
      a.viewerLastName === b.viewerLastName
    );
  });
  if (views.length === 0) return null;
  const line = (v: (typeof views)[number]) => {
    const date = dates.dateTime(v.at);
    const many = v.count > 1;
    if (v.via === "link")
      return v.label
        ? t(many ? "seen.openedViaForTimes" : "share.openedViaFor", { label: v.label, date, n: v.count })
        : t(many ? "seen.openedViaTimes" : "share.openedVia", { date, n: v.count });
    const expert = v.viewerAccountType === "Expert";
    const key = many
      ? expert
        ? "seen.viewedByExpertTimes"
        : "seen.viewedByAdminTimes"
      : expert
        ? "audit.viewedByExpert"
        : "audit.viewedByAdmin";
    return t(key, { name: `${v.viewerFirstName} ${v.viewerLastName}`.trim(), date, n: v.count });
  };
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
