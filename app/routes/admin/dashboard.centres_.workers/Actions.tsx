import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import type { ApiHealthWorker } from "~/domain/care/index.server";
import { WORKER_REJECTION_MAX } from "~/schemas/limits";
import type { loader } from "./route";

/** The buttons of one health worker's row: plain POSTs with an intent, so they work without JavaScript. */
function useBusy(userId: string) {
  const navigation = useNavigation();
  return navigation.state !== "idle" && navigation.formData?.get("userId") === userId;
}

export function Actions({ w }: { w: ApiHealthWorker }) {
  const { t } = useTranslation();
  const { centres } = useLoaderData<typeof loader>();
  const busy = useBusy(w._id);
  const name = `${w.firstName} ${w.lastName}`.trim();
  const hidden = (intent: string) => (
    <>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="userId" value={w._id} />
    </>
  );
  if (w.status === "pending") {
    const reasonId = `reject-reason-${w._id}`;
    return (
      <div className="flex flex-col gap-2 sm:min-w-44">
        <Form method="post" preventScrollReset>
          {hidden("approve")}
          <button type="submit" className="btn-primary w-full whitespace-nowrap" disabled={busy}>
            {t("centres.approve")}
            <span className="sr-only"> {name}</span>
          </button>
        </Form>
        <details className="rounded-lg border border-slate-200">
          <summary className="btn-secondary w-full cursor-pointer list-none whitespace-nowrap">
            {t("centres.reject")}
            <span className="sr-only"> {name}</span>
          </summary>
          <Form method="post" preventScrollReset className="space-y-2 p-2">
            {hidden("reject")}
            <label htmlFor={reasonId} className="field-label">
              {t("centres.rejectReasonLabel")}
            </label>
            <textarea
              id={reasonId}
              name="reason"
              required
              maxLength={WORKER_REJECTION_MAX}
              className="field-input min-h-20"
            />
            <button type="submit" className="btn-danger w-full whitespace-nowrap" disabled={busy}>
              {t("centres.reject")}
            </button>
          </Form>
        </details>
      </div>
    );
  }
  if (w.status === "suspended") {
    return (
      <Form method="post" preventScrollReset>
        {hidden("unsuspend")}
        <button type="submit" className="btn-secondary w-full whitespace-nowrap" disabled={busy}>
          {t("centres.unsuspend")}
          <span className="sr-only"> {name}</span>
        </button>
      </Form>
    );
  }
  const moveId = `move-${w._id}`;
  return (
    <div className="flex flex-col gap-2 sm:min-w-52">
      <Form method="post" preventScrollReset className="space-y-2">
        {hidden("move")}
        <label htmlFor={moveId} className="field-label">
          {t("centres.moveTo")}
        </label>
        <select id={moveId} name="centreId" defaultValue={w.centre._id} className="field-input">
          {centres.map((c) => (
            <option key={c._id} value={c._id}>
              {c.name} ({c.district})
            </option>
          ))}
        </select>
        <button type="submit" className="btn-secondary w-full whitespace-nowrap" disabled={busy}>
          {t("centres.move")}
          <span className="sr-only"> {name}</span>
        </button>
      </Form>
      <Form method="post" preventScrollReset>
        {hidden("suspend")}
        <button type="submit" className="btn-danger w-full whitespace-nowrap" disabled={busy}>
          {t("centres.suspend")}
          <span className="sr-only"> {name}</span>
        </button>
      </Form>
    </div>
  );
}
