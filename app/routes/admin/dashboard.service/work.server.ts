import type { Actor } from "~/domain/platform/index.server";
import { backgroundWork, settleDeadJob } from "~/domain/operations/index.server";
import { config } from "~/config.server";
import { formatDateTime } from "~/lib/format";
import type { TFunction } from "i18next";
import type { Client } from "~/domain/platform/index.server";
import { toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/** The background work's section: each kind's queue, and the failed jobs with their dates in the clinic's time. */
export async function workSection(actor: Actor, locale: string) {
  const work = await backgroundWork(actor);
  const zone = config().clinic.timeZone;
  return {
    kinds: work.kinds,
    dead: work.dead.map((j) => ({
      id: j.id,
      kind: j.kind,
      attempts: j.attempts,
      lastError: j.lastError,
      finished: j.finishedAt ? formatDateTime(j.finishedAt, locale, zone) : "—",
    })),
  };
}

/** Retry or Drop on a failed job: the domain checks the admin and that it is still failed. */
export async function workAction(
  intent: "job-retry" | "job-drop",
  form: FormData,
  { actor, t, client }: { actor: Actor; t: TFunction; client: Client },
) {
  const back = "/dashboard/service#service-work";
  try {
    await settleDeadJob(actor, form.get("jobId"), intent === "job-retry" ? "retry" : "drop", client);
  } catch (err) {
    return toastFailure(err, t, back);
  }
  return redirectWithSuccess(
    back,
    t(intent === "job-retry" ? "service.work.retried" : "service.work.dropped"),
  );
}
