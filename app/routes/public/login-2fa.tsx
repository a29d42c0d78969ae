import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import type { ShouldRevalidateFunction } from "@remix-run/react";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { AuthCard } from "~/components/AuthCard";
import { screenMeta } from "~/components/reports/meta";
import { OtpInput } from "~/components/OtpInput";
import { RecoveryCodeList, SetupSteps } from "~/components/TwoFactor";
import { FormError } from "~/components/ui/FormError";
import { loginSecondStep, challengeSetup, challengeState } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { site } from "~/site";
import { redirectIfSignedIn, sessionHeaders } from "~/web/auth.server";
import { codeFromForm, readForm, safeRedirect } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { challengeFromCookie, clearChallengeCookie } from "~/web/mfa.server";
import { clientOf } from "~/web/request.server";
import { screenFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * The second step of a browser login (decision 0017). The password was right; the challenge token is
 * in the short cb_mfa cookie. Either a code from the authenticator app (or a recovery code), or —
 * for an admin without one while it is required — setting the app up here, before any session.
 * Plain forms: works without JavaScript. The loader never redirects, so the recovery codes of a
 * finished setup can be shown in the same response that starts the session.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  const { t } = await tFor(request);
  const title = t("mfa.loginTitle");
  const token = await challengeFromCookie(request);
  const state = await challengeState(token, "web");
  if (!state) return { title, mode: "expired" as const, setup: null };
  if (state.mode === "enrol") {
    return { title: t("mfa.enrolTitle"), mode: "enrol" as const, setup: await challengeSetup(token, "web") };
  }
  return { title, mode: "code" as const, setup: null };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

// A page that can show a secret or recovery codes is never kept in a cache.
export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

// After a finished setup the page shows the recovery codes: the challenge is gone by then, and
// reloading the loader would only say so.
export const shouldRevalidate: ShouldRevalidateFunction = ({ actionResult, defaultShouldRevalidate }) =>
  actionResult && (actionResult as { recoveryCodes?: unknown }).recoveryCodes
    ? false
    : defaultShouldRevalidate;

type Intent = "code" | "recovery" | "enrol";

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const { t } = await tFor(request);
  const form = await readForm(request);
  const intent: Intent =
    form.get("intent") === "recovery" ? "recovery" : form.get("intent") === "enrol" ? "enrol" : "code";
  const token = await challengeFromCookie(request);
  const proof =
    intent === "recovery"
      ? { recoveryCode: String(form.get("recoveryCode") ?? "") }
      : { code: codeFromForm(form) };
  const to = safeRedirect(form.get("redirectTo"), "/dashboard/home");
  const target = to.startsWith("/login") ? "/dashboard/home" : to;
  try {
    const {
      user,
      token: session,
      recoveryCodes,
    } = await loginSecondStep(token, proof, clientOf(context), "web");
    const headers = await sessionHeaders(session, user.locale, user.id);
    headers.append("Set-Cookie", await clearChallengeCookie());
    if (recoveryCodes) {
      // Signed in now; the codes are shown once, in this response only.
      return data({ intent, recoveryCodes, target, error: null, expired: false }, { headers });
    }
    return redirectWithSuccess(target, t("accounts.loginSuccess"), { headers });
  } catch (err) {
    const f = screenFailure(err, t);
    const headers = new Headers(f.headers);
    const expired = f.error.code === "not_authenticated" || f.error.code === "forbidden";
    if (expired) headers.append("Set-Cookie", await clearChallengeCookie());
    return data(
      { intent, recoveryCodes: null, target, error: f.message, expired },
      { status: f.status, headers },
    );
  }
}

export default function LoginSecondStep() {
  const { t } = useTranslation();
  const { mode, setup } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [params] = useSearchParams();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : null;
  const keepRedirect = <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? ""} />;
  const back = (
    <p className="mt-6 text-center text-sm">
      <Link to="/login" className="link">
        ← {t("accounts.backToLogin")}
      </Link>
    </p>
  );

  if (actionData?.recoveryCodes) {
    return (
      <AuthCard title={t("mfa.turnedOn")} intro={<p>{t("mfa.enrolDone")}</p>} wide>
        <RecoveryCodeList codes={actionData.recoveryCodes} />
        <a href={actionData.target} className="btn-primary mt-6 w-full">
          {t("mfa.continue")}
        </a>
      </AuthCard>
    );
  }

  if (mode === "expired" || actionData?.expired) {
    return (
      <AuthCard title={t("mfa.loginTitle")}>
        <FormError id="mfa-error" errors={[actionData?.error ?? t("mfa.challengeExpired")]} />
        <Link to="/login" className="btn-primary mt-6 w-full">
          {t("mfa.loginAgain")}
        </Link>
      </AuthCard>
    );
  }

  const codeError = actionData && actionData.intent !== "recovery" ? actionData.error : null;
  const recoveryError = actionData && actionData.intent === "recovery" ? actionData.error : null;

  if (mode === "enrol" && setup) {
    return (
      <AuthCard title={t("mfa.enrolTitle")} intro={<p>{t("mfa.enrolIntro")}</p>} wide>
        <SetupSteps setup={setup} />
        <Form method="post" className="mt-6 space-y-4">
          {keepRedirect}
          <h2 className="font-bold text-slate-900">{t("mfa.step3Title")}</h2>
          <FormError id="mfa-error" errors={codeError ? [codeError] : null} />
          <OtpInput errorId="mfa-error" invalid={!!codeError} />
          <button type="submit" name="intent" value="enrol" className="btn-primary w-full" disabled={!!busy}>
            {busy ? t("mfa.checking") : t("mfa.turnOnAndSignIn")}
          </button>
        </Form>
        {back}
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t("mfa.loginTitle")} intro={<p>{t("mfa.loginText", { product: site.productName })}</p>}>
      <Form method="post" className="space-y-5">
        {keepRedirect}
        <FormError id="mfa-error" errors={codeError ? [codeError] : null} />
        <OtpInput errorId="mfa-error" invalid={!!codeError} />
        <button type="submit" name="intent" value="code" className="btn-primary w-full" disabled={!!busy}>
          {busy === "code" ? t("mfa.checking") : t("mfa.verify")}
        </button>
      </Form>
      <details className="mt-6 rounded-lg border border-slate-200 p-3" open={!!recoveryError}>
        <summary className="min-h-11 cursor-pointer py-2 font-semibold text-brand-700">
          {t("mfa.useRecovery")}
        </summary>
        <Form method="post" className="mt-3 space-y-3">
          {keepRedirect}
          <p className="text-sm text-slate-700">{t("mfa.recoveryHint")}</p>
          <FormError id="recovery-error" errors={recoveryError ? [recoveryError] : null} />
          <label htmlFor="recoveryCode" className="field-label">
            {t("mfa.recoveryLabel")}
          </label>
          <input
            id="recoveryCode"
            name="recoveryCode"
            className="field-input font-mono"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={40}
            required
            aria-invalid={recoveryError ? true : undefined}
            aria-describedby={recoveryError ? "recovery-error" : undefined}
          />
          <button
            type="submit"
            name="intent"
            value="recovery"
            className="btn-secondary w-full"
            disabled={!!busy}
          >
            {busy === "recovery" ? t("mfa.checking") : t("mfa.useRecoveryButton")}
          </button>
        </Form>
      </details>
      {back}
    </AuthCard>
  );
}
