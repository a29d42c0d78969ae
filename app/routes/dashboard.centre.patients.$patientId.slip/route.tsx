import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { PrintStyle } from "~/components/care/PrintStyle";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { getCarePatient } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { requireActor } from "~/utils/auth.server";
import { clientOf } from "~/utils/request.server";
import { pageError } from "~/utils/screen.server";

/**
 * The slip the patient takes home (decision 0030): the short ID large, their name, the centre and
 * how the answer comes back. Prints on its own (print CSS) and reads on a phone at 360 px.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  try {
    const patient = await getCarePatient(actor, params.patientId ?? "", { ip: clientOf(context).ip });
    return { title: t("registration.slipTitle"), patient };
  } catch (err) {
    pageError(err);
  }
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export default function Slip() {
  const { t } = useTranslation();
  const dates = useDateText();
  const { patient } = useLoaderData<typeof loader>();
  const centre = patient.centre?.name ?? "";
  return (
    <section className="mx-auto max-w-md">
      <PrintStyle />
      <div data-print className="card space-y-4 border-2 border-slate-800 text-slate-900" data-testid="slip">
        <h1 className="text-lg font-semibold">{t("registration.slipTitle")}</h1>
        <div>
          <p className="text-sm text-slate-700">{t("registration.slipId")}</p>
          <p className="font-mono text-4xl font-bold tracking-wider break-all" data-testid="slip-short-id">
            {patient.shortId}
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
      </div>
      <p className="mt-5 flex flex-wrap gap-3" data-no-print>
        <a
          href="#print"
          className="btn-primary"
          data-print-button
          onClick={(e) => (e.preventDefault(), window.print())}
        >
          {t("registration.print")}
        </a>
        <Link to={`/dashboard/centre/patients/${encodeURIComponent(patient._id)}`} className="btn-secondary">
          {t("registration.backToPatient")}
        </Link>
      </p>
    </section>
  );
}
