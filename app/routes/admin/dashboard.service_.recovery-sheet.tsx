import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { ReauthProofField } from "~/components/TwoStepFields";
import { FormError } from "~/components/ui/FormError";
import { hasTwoFactor } from "~/domain/accounts/index.server";
import { printRecoverySheet } from "~/domain/operations/index.server";
import { tFor } from "~/i18n/i18n.server";
import { proofFromText } from "~/schemas/two-factor";
import { site } from "~/site";
import { requireActor, requireRole } from "~/web/auth.server";
import { config } from "~/config.server";
import { formatDateTime } from "~/lib/format";
import { readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { screenFailure } from "~/web/screen.server";

/**
 * The recovery sheet (decisions 0068, 0091): an admin enters their password and a code from their
 * authenticator app, and gets one printable page — the clinic and server it is for, where the copy
 * is (or that there is none elsewhere), its password and the steps of a restore, in their language. The answer is never cached; each printing is recorded and audited.
 * Print styles (app/tailwind.css) hide everything but the sheet.
 */
const NO_STORE = { "Cache-Control": "no-store" };

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireRole(request, "Admin");
  const { t } = await tFor(request);
  return data(
    { title: t("backups.sheetTitle"), twoStep: await hasTwoFactor(actor.id) },
    { headers: NO_STORE },
  );
}

export const meta: MetaFunction<typeof loader> = screenMeta;
export const headers: HeadersFunction = () => NO_STORE;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  // Not requireRole: the domain refuses a non-admin (403), so the refusal is the step's own.
  const actor = await requireActor(request);
  const { t, locale } = await tFor(request);
  const form = await readForm(request);
  try {
    const sheet = await printRecoverySheet(
      actor,
      { password: String(form.get("password") ?? ""), ...proofFromText(String(form.get("proof") ?? "")) },
      clientOf(context),
    );
    return data(
      {
        error: null,
        sheet: {
          ...sheet,
          printedAt: undefined,
          printedText: t("backups.sheetPrinted", {
            date: formatDateTime(sheet.printedAt, locale, config().clinic.timeZone),
            name: sheet.printedBy,
          }),
        },
      },
      { headers: NO_STORE },
    );
  } catch (err) {
    const f = screenFailure(err, t);
    return data(
      { error: f.message, sheet: null },
      { status: f.status, headers: { ...f.headers, ...NO_STORE } },
    );
  }
}

export default function RecoverySheetPage() {
  const { t } = useTranslation();
  const { twoStep } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const sheet = result?.sheet;
  if (sheet) {
    return (
      <div className="max-w-3xl">
        <article id="recovery-sheet" className="card space-y-5 text-slate-900" data-testid="recovery-sheet">
          <h1 className="text-2xl font-bold">{t("backups.sheetHeading", { product: site.productName })}</h1>
          {!sheet.offMachine && (
            <p className="rounded-lg border border-red-300 bg-red-50 p-3">{t("backups.sheetLocalWarning")}</p>
          )}
          <dl className="space-y-3">
            <div>
              <dt className="font-bold">{t("backups.sheetClinic")}</dt>
              <dd className="break-words" data-testid="sheet-clinic">
                {sheet.clinic.name} · <span className="break-all font-mono">{sheet.clinic.url}</span>
              </dd>
            </div>
            <div>
              <dt className="font-bold">{t("backups.sheetServer")}</dt>
              <dd className="break-all font-mono" data-testid="sheet-server">
                {sheet.clinic.server}
              </dd>
            </div>
            <div>
              <dt className="font-bold">{t("backups.sheetWhere")}</dt>
              <dd
                className={sheet.repository ? "break-all font-mono" : "break-words"}
                data-testid="sheet-repository"
              >
                {sheet.repository ?? t("backups.sheetNowhere")}
              </dd>
            </div>
            <div>
              <dt className="font-bold">{t("backups.sheetPassword")}</dt>
              <dd className="break-words font-mono text-lg tracking-wide" data-testid="sheet-password">
                {sheet.password}
              </dd>
            </div>
          </dl>
          {sheet.steps.length > 0 && (
            <section>
              <h2 className="text-lg font-bold">{t("backups.sheetRestoreTitle")}</h2>
              <ol className="mt-2 list-decimal space-y-2 pl-6">
                {sheet.steps.map((step) => (
                  <li key={step.key}>
                    {t(step.key)}
                    {step.commands.length > 0 && (
                      <pre
                        className="mt-1 whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-sm"
                        data-testid="sheet-command"
                      >
                        {step.commands.join("\n")}
                      </pre>
                    )}
                  </li>
                ))}
              </ol>
            </section>
          )}
          <p className="font-medium">{t("backups.sheetKeepSafe")}</p>
          <p className="text-sm text-slate-600">{sheet.printedText}</p>
          <div className="no-print flex flex-wrap gap-3">
            <button type="button" className="btn-primary" onClick={() => window.print()}>
              {t("backups.print")}
            </button>
            <Link to="/dashboard/service" className="btn-secondary">
              {t("backups.back")}
            </Link>
          </div>
        </article>
      </div>
    );
  }
  return (
    <div className="max-w-2xl space-y-6">
      <PageHeader title={t("backups.sheetTitle")} intro={t("backups.sheetIntro")} />
      <section className="card space-y-4">
        {!twoStep ? (
          <>
            <p role="alert">{t("backups.sheetNeedsTwoStep")}</p>
            <Link to="/dashboard/two-step" className="btn-primary inline-flex">
              {t("mfa.title")}
            </Link>
          </>
        ) : (
          <Form
            method="post"
            className="space-y-4"
            aria-describedby={result?.error ? "sheet-error" : undefined}
          >
            <FormError id="sheet-error" errors={result?.error ? [result.error] : null} />
            <div className="max-w-xs">
              <label htmlFor="sheet-password-input" className="field-label">
                {t("accounts.password")}
              </label>
              <input
                id="sheet-password-input"
                name="password"
                type="password"
                className="field-input"
                autoComplete="current-password"
                maxLength={128}
                required
                aria-invalid={!!result?.error || undefined}
                aria-describedby={result?.error ? "sheet-error" : undefined}
              />
            </div>
            <ReauthProofField id="sheet-proof" invalid={!!result?.error} errorId="sheet-error" />
            <button type="submit" className="btn-primary" disabled={busy}>
              {t("backups.sheetShow")}
            </button>
          </Form>
        )}
        <p>
          <Link to="/dashboard/service" className="link">
            {t("backups.back")}
          </Link>
        </p>
      </section>
    </div>
  );
}
