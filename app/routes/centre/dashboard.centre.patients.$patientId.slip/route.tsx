import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { PrintStyle } from "~/components/care/PrintStyle";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { getCarePatient, printSlip, slipPrinted, type PrintedSlip } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/web/auth.server";
import { guardForm } from "~/web/guard.server";
import { readForm } from "~/web/forms.server";
import { clientOf } from "~/web/request.server";
import { pageError, toastFailure } from "~/web/screen.server";

/**
 * The slip the patient takes home (decision 0030): the short ID large, their name, the centre and
 * how the answer comes back. Printing it (a post, decision 0073) draws a new take-over code shown
 * on this answer only — the previous slip's code stops working — and the page reopened later says
 * when and by whom the slip in force was printed, never its code. Prints on its own (print CSS)
 * and reads on a phone at 360 px.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  try {
    const patient = await getCarePatient(actor, params.patientId ?? "", { ip: clientOf(context).ip });
    const printed = patient.access === "centre" ? await slipPrinted(patient._id) : null;
    return { title: t("registration.slipTitle"), patient, printed };
  } catch (err) {
    pageError(err);
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  await readForm(request);
  try {
    const slip: PrintedSlip = await printSlip(actor, params.patientId ?? "", clientOf(context).ip);
    return { slip };
  } catch (err) {
    return toastFailure(
      err,
      t,
      `/dashboard/centre/patients/${encodeURIComponent(params.patientId ?? "")}/slip`,
    );
  }
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function Slip() {
  const { t } = useTranslation();
  const dates = useDateText();
  const { patient, printed } = useLoaderData<typeof loader>();
  const fresh = (useActionData<typeof action>() as { slip?: PrintedSlip } | undefined)?.slip;
  const busy = useNavigation().state === "submitting";
  const centre = patient.centre?.name ?? "";
  const withCode = patient.access === "centre" && !patient.hasOwnAccount;
  return (
    <section className="mx-auto max-w-md">
      <PrintStyle />
      <div data-print className="card space-y-4 border-2 border-slate-800 text-slate-900" data-testid="slip">
        <h1 className="text-lg font-semibold">{t("registration.slipTitle")}</h1>
        <div>
          <p className="text-sm text-slate-700">{t("registration.slipId")}</p>
          <p className="font-mono text-4xl font-bold tracking-wider break-all" data-testid="slip-short-id">
            {fresh?.shortId ?? patient.shortId}
          </p>
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
          <dt className="text-slate-700">{t("registration.slipName")}</dt>
          <dd className="font-semibold">{`${patient.firstName} ${patient.lastName}`.trim()}</dd>
          <dt className="text-slate-700">{t("registration.slipCentre")}</dt>
          <dd className="font-semibold">{centre}</dd>
        </dl>
        <p className="text-sm text-slate-700">
          {t("registration.slipRegistered", { date: dates.day(patient.createdAt) })}
        </p>
        <div className="rounded-lg border border-slate-400 p-3">
          <h2 className="font-bold">{t("registration.slipHowBack")}</h2>
          <p className="mt-1">
            {t(patient.phone ? "registration.slipHowBackPhone" : "registration.slipHowBackNoPhone", {
              centre,
            })}
          </p>
        </div>
        {fresh && (
          <div className="rounded-lg border-2 border-dashed border-slate-700 p-3">
            <p className="text-sm text-slate-700">{t("slip.codeLabel")}</p>
            <p className="font-mono text-2xl font-bold tracking-wider break-all" data-testid="slip-code">
              {fresh.slipCode}
            </p>
            <p className="mt-1 text-sm">{t("slip.codeHint")}</p>
          </div>
        )}
      </div>
      <div className="mt-5 space-y-3" data-no-print>
        {fresh ? (
          <p className="font-semibold text-amber-900" role="status">
            {t("slip.printedNow")}
          </p>
        ) : withCode ? (
          <p data-testid="slip-printed">
            {printed
              ? t("slip.printedBefore", { date: dates.day(printed.at), name: printed.by || "—" })
              : t("slip.notPrinted")}
          </p>
        ) : null}
        <div className="flex flex-wrap gap-3">
          {(fresh || !withCode) && (
            <a
              href="#print"
              className="btn-primary"
              data-print-button
              onClick={(e) => (e.preventDefault(), window.print())}
            >
              {t("registration.print")}
            </a>
          )}
          {withCode && !fresh && (
            <Form method="post">
              <button type="submit" className="btn-primary" disabled={busy} data-testid="slip-print">
                {printed ? t("slip.reprint") : t("slip.printFirst")}
              </button>
            </Form>
          )}
          <Link
            to={`/dashboard/centre/patients/${encodeURIComponent(patient._id)}`}
            className="btn-secondary"
          >
            {t("registration.backToPatient")}
          </Link>
        </div>
      </div>
    </section>
  );
}
