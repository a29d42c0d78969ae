import { parseFormData } from "~/schemas/strict";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useServerForm } from "~/components/ui/useServerForm";
import { useNoPreparedKey } from "~/offline/signin";
import { AuthCard } from "~/components/AuthCard";
import { MobileNumberField } from "~/components/MobileNumberField";
import { OtpInput } from "~/components/OtpInput";
import { smsCountryCodeOptions } from "~/lib/country-codes.server";
import { FormError } from "~/components/ui/FormError";
import { loginWithCode, requestLoginCode } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { mobileFormSchema, phone as phoneSchema, verifyCodeSchema } from "~/schemas/auth";
import { knownDeviceOf, redirectIfSignedIn, sessionHeaders } from "~/web/auth.server";
import { codeFromForm, readForm, safeRedirect } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { toSecondStep } from "~/web/mfa.server";
import { maskPhone } from "~/lib/phone.server";
import { formFailure, screenFailure } from "~/web/screen.server";
import { clientOf } from "~/web/request.server";
import { redirectWithSuccess, toasts } from "~/web/toast.server";

/**
 * Log in with a mobile number and a 6-digit SMS code, for patients who have no
 * e-mail they read or forget passwords. Step 1 asks for the number, step 2 for the code; the
 * number travels in the form, so the page works without JavaScript and after a reload.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  const { locale } = await tFor(request);
  return { countryCodes: smsCountryCodeOptions(locale) };
}

type CodeStep = { step: "code"; phone: string; masked: string; error: string | null };

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  await redirectIfSignedIn(request);
  const { t, locale } = await tFor(request);
  const form = await readForm(request);
  const intent = form.get("intent");
  if (intent === "send") {
    const submission = parseFormData(form, { schema: mobileFormSchema });
    if (submission.status !== "success") {
      return data({ step: "phone" as const, result: submission.reply() }, { status: 400 });
    }
    const { phone } = submission.value;
    try {
      await requestLoginCode(phone, clientOf(context), locale, await knownDeviceOf(request));
    } catch (err) {
      // A number that cannot get SMS is the number field's error; anything else (the limit) the form's.
      const onNumber = (o: { fieldErrors?: Record<string, string[]>; formErrors?: string[] }) =>
        o.fieldErrors?.mobileNumber
          ? submission.reply({ fieldErrors: { mobileNumber: o.fieldErrors.mobileNumber } })
          : submission.reply({ formErrors: o.formErrors });
      return formFailure(err, t, onNumber, { wrap: (result) => ({ step: "phone" as const, result }) });
    }
    return toasts().jsonWithSuccess(codeStep(phone, null), t("accounts.loginCodeSent"));
  }
  // Step 2 (or "send a new code"): the number comes back from the hidden field.
  const parsedPhone = phoneSchema.safeParse(form.get("phone") ?? "");
  if (!parsedPhone.success) {
    return data({ step: "phone" as const, result: null }, { status: 400 });
  }
  const phone = parsedPhone.data;
  try {
    if (intent === "resend") {
      await requestLoginCode(phone, clientOf(context), locale, await knownDeviceOf(request));
      return toasts().jsonWithSuccess(codeStep(phone, null), t("accounts.loginCodeSent"));
    }
    const code = verifyCodeSchema.safeParse({ code: codeFromForm(form) });
    if (!code.success) return data(codeStep(phone, t("accounts.otpInvalid")), { status: 400 });
    const result = await loginWithCode(phone, code.data.code, clientOf(context), "web");
    const to = safeRedirect(form.get("redirectTo"), "/dashboard/home");
    const target = to.startsWith("/login") ? "/dashboard/home" : to;
    // Two-step login: no session yet, the second step comes first.
    if (result.mfa) return toSecondStep(result.mfa.token, target);
    return redirectWithSuccess(target, t("accounts.loginSuccess"), {
      headers: await sessionHeaders(result.token, result.user.locale, result.user.id),
    });
  } catch (err) {
    const f = screenFailure(err, t);
    return data(codeStep(phone, f.message), { status: f.status, headers: f.headers });
  }
}

function codeStep(phone: string, error: string | null): CodeStep {
  return { step: "code", phone, masked: maskPhone(phone), error };
}

export default function LoginCode() {
  const { t } = useTranslation();
  const { countryCodes } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  // Where to go after logging in (e.g. an SMS short link), kept through both steps.
  const keepRedirect = <input type="hidden" name="redirectTo" value={params.get("redirectTo") ?? ""} />;
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  // A code makes no outbox key: none an earlier password sign-in prepared may become hers (decision 0087).
  useNoPreparedKey();
  const intent = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;
  const codeState = actionData && actionData.step === "code" ? (actionData as CodeStep) : null;
  const phoneResult = actionData && actionData.step === "phone" ? actionData.result : undefined;
  // Checked by the server alone: the page loads no zod (decisions 0036, 0094).
  const [form, fields] = useServerForm(phoneResult, ["mobileCountryCode", "mobileNumber"], {
    id: "login-code",
  });

  const toPassword = (
    <p className="mt-4 text-center text-sm">
      <Link
        to={
          params.get("redirectTo")
            ? `/login?redirectTo=${encodeURIComponent(params.get("redirectTo")!)}`
            : "/login"
        }
        className="link"
      >
        ← {t("accounts.loginWithPassword")}
      </Link>
    </p>
  );

  if (codeState) {
    return (
      <AuthCard
        title={t("accounts.loginCodeTitle")}
        intro={<p>{t("accounts.loginCodeEnter", { phone: codeState.masked })}</p>}
      >
        <Form method="post" className="space-y-5">
          <input type="hidden" name="phone" value={codeState.phone} />
          {keepRedirect}
          <FormError id="otp-error" errors={codeState.error ? [codeState.error] : null} />
          <OtpInput errorId="otp-error" invalid={!!codeState.error} />
          <button
            type="submit"
            name="intent"
            value="verify"
            className="btn-primary w-full"
            disabled={!!intent}
          >
            {intent === "verify" ? t("accounts.signingIn") : t("accounts.signIn")}
          </button>
        </Form>
        <Form method="post" className="mt-4 text-sm">
          <input type="hidden" name="phone" value={codeState.phone} />
          {keepRedirect}
          {t("accounts.didntGet")}{" "}
          <button type="submit" name="intent" value="resend" className="link min-h-11" disabled={!!intent}>
            {t("accounts.resend")}
          </button>
        </Form>
        {toPassword}
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t("accounts.loginCodeTitle")} intro={<p>{t("accounts.loginCodeText")}</p>}>
      <Form method="post" {...form.props} noValidate className="space-y-4">
        {keepRedirect}
        <FormError id={form.errorId} errors={form.errors} />
        <MobileNumberField
          code={fields.mobileCountryCode}
          number={fields.mobileNumber}
          options={countryCodes}
        />
        <button type="submit" name="intent" value="send" className="btn-primary w-full" disabled={!!intent}>
          {intent === "send" ? t("accounts.sending") : t("accounts.sendLoginCode")}
        </button>
      </Form>
      {toPassword}
    </AuthCard>
  );
}
