import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import type { ShouldRevalidateFunction } from "@remix-run/react";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { OtpInput } from "~/components/OtpInput";
import { screenMeta } from "~/components/reports/meta";
import { PageHeader } from "~/components/reports/PageHeader";
import { RecoveryCodeList, SetupSteps } from "~/components/TwoFactor";
import { ReauthPasswordField, ReauthProofField } from "~/components/TwoStepFields";
import { FormError } from "~/components/ui/FormError";
import {
  turnOffTwoFactor,
  beginSetup,
  cancelSetup,
  confirmSetup,
  pendingSetup,
  regenerateRecoveryCodes,
  twoFactorStatus,
} from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { proofFromText } from "~/schemas/two-factor";
import { requireActor } from "~/web/auth.server";
import { formatDateTime } from "~/lib/format";
import { codeFromForm, readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { screenFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * Two-step login for the signed-in account, reached from Settings: set it up (QR code
 * and key → first code → recovery codes shown once), make new recovery codes, or turn it off
 * (password and a code; not for admins while it is required). Plain forms, no JavaScript needed.
 */
const PAGE = "/dashboard/two-step";
const SETTINGS = "/dashboard/settings";

export async function loader({ request }: LoaderFunctionArgs) {
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const status = await twoFactorStatus(actor);
  return {
    title: t("mfa.title"),
    status,
    setup: status.pending ? await pendingSetup(actor) : null,
  };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

// The recovery codes are in the action's answer only: keep showing them (no reload of the page data needed).
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionResult, defaultShouldRevalidate }) =>
  actionResult && (actionResult as { recoveryCodes?: unknown }).recoveryCodes
    ? false
    : defaultShouldRevalidate;

type Intent = "start" | "confirm" | "cancel" | "regenerate" | "disable";
const INTENTS: Intent[] = ["start", "confirm", "cancel", "regenerate", "disable"];

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const actor = await requireActor(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  const raw = String(form.get("intent") ?? "");
  const intent = INTENTS.find((i) => i === raw);
  if (!intent)
    return data({ intent: null, error: t("validation.invalidInput"), recoveryCodes: null }, { status: 400 });
  const client = clientOf(context);
  try {
    switch (intent) {
      case "start":
        await beginSetup(actor, { password: String(form.get("password") ?? "") }, client);
        return redirect(PAGE);
      case "cancel":
        await cancelSetup(actor);
        return redirectWithSuccess(SETTINGS, t("mfa.setupCancelled"));
      case "confirm": {
        const { recoveryCodes } = await confirmSetup(
          actor,
          { password: String(form.get("password") ?? ""), code: codeFromForm(form) },
          client,
        );
        return data({ intent, error: null, recoveryCodes });
      }
      case "regenerate": {
        const proof = proofFromText(String(form.get("proof") ?? ""));
        const { recoveryCodes } = await regenerateRecoveryCodes(actor, proof, client);
        return data({ intent, error: null, recoveryCodes });
      }
      case "disable": {
        const proof = proofFromText(String(form.get("proof") ?? ""));
        await turnOffTwoFactor(actor, { password: String(form.get("password") ?? ""), ...proof }, client);
        return redirectWithSuccess(SETTINGS, t("mfa.turnedOff"));
      }
    }
  } catch (err) {
    // Plain forms without Conform: the translated refusal goes to the form that was sent.
    const f = screenFailure(err, t);
    return data({ intent, error: f.message, recoveryCodes: null }, { status: f.status, headers: f.headers });
  }
}

export default function TwoStep() {
  const { t, i18n } = useTranslation();
  const { status, setup } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : null;
  const errorFor = (intent: Intent) => (actionData?.intent === intent ? actionData.error : null);

  if (actionData?.recoveryCodes) {
    return (
      <div className="max-w-2xl space-y-6">
        <PageHeader
          title={t("mfa.title")}
          intro={actionData.intent === "confirm" ? t("mfa.turnedOn") : t("mfa.newCodesMade")}
        />
        <RecoveryCodeList codes={actionData.recoveryCodes} />
        <Link to={SETTINGS} className="btn-primary">
          {t("mfa.savedThem")}
        </Link>
      </div>
    );
  }

  if (status.enabled) {
    const regenerateError = errorFor("regenerate");
    const disableError = errorFor("disable");
    return (
      <div className="max-w-2xl space-y-6">
        <PageHeader title={t("mfa.title")} intro={t("mfa.onIntro")} />
        <section aria-labelledby="state-heading" className="card">
          <h2 id="state-heading" className="text-lg font-bold text-slate-900">
            {t("mfa.onBadge")}
          </h2>
          {status.enabledAt && (
            <p className="mt-2 text-slate-700">
              {t("mfa.onSince", { date: formatDateTime(status.enabledAt, i18n.language) })}
            </p>
          )}
          <p
            className={`mt-1 ${status.recoveryCodesLeft <= 2 ? "font-semibold text-red-800" : "text-slate-700"}`}
          >
            {t("mfa.codesLeft", { count: status.recoveryCodesLeft })}
          </p>
        </section>
        <section aria-labelledby="regen-heading" className="card">
          <h2 id="regen-heading" className="text-lg font-bold text-slate-900">
            {t("mfa.regenerateTitle")}
          </h2>
          <p className="mt-1 max-w-prose text-slate-700">{t("mfa.regenerateText")}</p>
          <Form method="post" className="mt-4 space-y-4">
            <input type="hidden" name="intent" value="regenerate" />
            <FormError id="regen-error" errors={regenerateError ? [regenerateError] : null} />
            <ReauthProofField id="regen-proof" invalid={!!regenerateError} errorId="regen-error" />
            <button type="submit" className="btn-primary" disabled={!!busy}>
              {busy === "regenerate" ? t("mfa.checking") : t("mfa.regenerateButton")}
            </button>
          </Form>
        </section>
        <section aria-labelledby="off-heading" className="card border-red-300">
          <h2 id="off-heading" className="text-lg font-bold text-red-800">
            {t("mfa.turnOffTitle")}
          </h2>
          {status.required ? (
            <p className="mt-1 max-w-prose text-slate-700">{t("mfa.requiredForAdmins")}</p>
          ) : (
            <>
              <p className="mt-1 max-w-prose text-slate-700">{t("mfa.turnOffText")}</p>
              <Form method="post" className="mt-4 space-y-4">
                <input type="hidden" name="intent" value="disable" />
                <FormError id="off-error" errors={disableError ? [disableError] : null} />
                <div className="max-w-xs">
                  <label htmlFor="off-password" className="field-label">
                    {t("accounts.password")}
                  </label>
                  <input
                    id="off-password"
                    name="password"
                    type="password"
                    className="field-input"
                    autoComplete="current-password"
                    maxLength={128}
                    required
                    aria-invalid={disableError ? true : undefined}
                    aria-describedby={disableError ? "off-error" : undefined}
                  />
                </div>
                <ReauthProofField id="off-proof" invalid={!!disableError} errorId="off-error" />
                <button type="submit" className="btn-danger" disabled={!!busy}>
                  {busy === "disable" ? t("mfa.checking") : t("mfa.turnOffButton")}
                </button>
              </Form>
            </>
          )}
        </section>
        <p>
          <Link to={SETTINGS} className="link">
            ← {t("mfa.backToSettings")}
          </Link>
        </p>
      </div>
    );
  }

  if (setup) {
    const confirmError = errorFor("confirm");
    return (
      <div className="max-w-2xl space-y-6">
        <PageHeader title={t("mfa.setupTitle")} intro={t("mfa.setupIntro")} />
        <div className="card space-y-6">
          <SetupSteps setup={setup} />
          <Form method="post" className="space-y-4">
            <input type="hidden" name="intent" value="confirm" />
            <h2 className="font-bold text-slate-900">{t("mfa.step3Title")}</h2>
            <FormError id="confirm-error" errors={confirmError ? [confirmError] : null} />
            <ReauthPasswordField id="confirm-password" invalid={!!confirmError} errorId="confirm-error" />
            <div className="max-w-sm">
              <OtpInput errorId="confirm-error" invalid={!!confirmError} />
            </div>
            <button type="submit" className="btn-primary" disabled={!!busy}>
              {busy === "confirm" ? t("mfa.checking") : t("mfa.turnOn")}
            </button>
          </Form>
        </div>
        <Form method="post">
          <input type="hidden" name="intent" value="cancel" />
          <button type="submit" className="btn-secondary" disabled={!!busy}>
            {t("mfa.cancelSetup")}
          </button>
        </Form>
      </div>
    );
  }

  const startError = errorFor("start");
  return (
    <div className="max-w-2xl space-y-6">
      <PageHeader title={t("mfa.title")} intro={t("mfa.intro")} />
      <div className="card space-y-4">
        {status.required && <p className="font-semibold text-slate-900">{t("mfa.requiredNote")}</p>}
        <FormError id="start-error" errors={startError ? [startError] : null} />
        <Form method="post" className="space-y-4">
          <input type="hidden" name="intent" value="start" />
          <ReauthPasswordField id="start-password" invalid={!!startError} errorId="start-error" />
          <button type="submit" className="btn-primary" disabled={!!busy}>
            {t("mfa.setUp")}
          </button>
        </Form>
      </div>
      <p>
        <Link to={SETTINGS} className="link">
          ← {t("mfa.backToSettings")}
        </Link>
      </p>
    </div>
  );
}
