import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { EmptyState } from "~/components/reports/EmptyState";
import { ResponsiveTable, type Column } from "~/components/reports/ResponsiveTable";
import type { ApiHealthWorker } from "~/domain/care/index.server";
import type { ApiHeldItem } from "~/domain/consultation/index.server";
import { HELD_KIND_KEYS, HELD_REASON_KEYS, HELD_STATUS_KEYS } from "~/schemas/centres";

/**
 * What suspended or moved workers recorded offline for this centre (decision 0065), each with a
 * plain form (works without JavaScript) to hand it to one of the centre's approved workers.
 */
export function HeldItems({ items, workers }: { items: ApiHeldItem[]; workers: ApiHealthWorker[] }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const approved = workers.filter((w) => w.status === "approved");
  const nameOf = (id: string | null) => {
    const w = workers.find((x) => x._id === id);
    return w ? `${w.firstName} ${w.lastName}`.trim() : "";
  };
  const columns: Column<ApiHeldItem>[] = [
    { key: "kind", header: t("held.colKind"), cell: (h) => t(HELD_KIND_KEYS[h.kind]) },
    { key: "by", header: t("held.colRecordedBy"), cell: (h) => h.recordedBy.name },
    { key: "reason", header: t("held.colReason"), cell: (h) => t(HELD_REASON_KEYS[h.reason]) },
    {
      key: "at",
      header: t("held.colRecordedAt"),
      cell: (h) => <time dateTime={h.createdAt}>{h.createdAt.slice(0, 16).replace("T", " ")}</time>,
    },
    {
      key: "status",
      header: t("held.colStatus"),
      cell: (h) => {
        if (h.status !== "held")
          return `${t(HELD_STATUS_KEYS[h.status])}${h.handedTo ? ` · ${nameOf(h.handedTo)}` : ""}`;
        if (!approved.length) return t("held.noWorkers");
        const id = `hand-${h._id}`;
        const busy = navigation.state !== "idle" && navigation.formData?.get("heldItemId") === h._id;
        return (
          <Form method="post" preventScrollReset className="flex min-w-52 flex-col gap-2">
            <input type="hidden" name="intent" value="hand-over" />
            <input type="hidden" name="heldItemId" value={h._id} />
            <label htmlFor={id} className="field-label">
              {t("held.handTo")}
            </label>
            <select id={id} name="workerId" className="field-input">
              {approved.map((w) => (
                <option key={w._id} value={w._id}>
                  {`${w.firstName} ${w.lastName}`.trim()}
                </option>
              ))}
            </select>
            <button type="submit" className="btn-primary whitespace-nowrap" disabled={busy}>
              {t("held.handButton")}
            </button>
          </Form>
        );
      },
    },
  ];
  return (
    <section aria-labelledby="centre-held">
      <h2 id="centre-held" className="mb-1 text-lg font-bold text-slate-900">
        {t("held.title")}
      </h2>
      <p className="mb-3 text-sm text-slate-700">{t("held.intro")}</p>
      {items.length === 0 ? (
        <EmptyState message={t("held.none")} />
      ) : (
        <ResponsiveTable
          caption={t("held.title")}
          columns={columns}
          rows={items}
          rowKey={(h) => h._id}
          testId="centre-held"
        />
      )}
    </section>
  );
}
