import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { OtpInput } from "~/components/OtpInput";
import { AuthCard } from "~/components/AuthCard";
import { FormError } from "~/components/ui/FormError";
import { completeSignup, getPendingSignup, resendSignupCode } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { verifyCodeSchema } from "~/schemas/auth";
import { redirectIfSignedIn } from "~/web/auth.server";
import { codeFromForm, readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { pendingSignupCookie, readPendingId } from "~/web/pending-signup.server";
import { screenFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { clientOf } from "~/web/request.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  const pending = await getPendingSignup(await readPendingId(request));
  if (!pending) throw redirect("/signup");
  return { email: pending.email, phone: pending.phone };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  await redirectIfSignedIn(request);
  const { t } = await tFor(request);
  const pendingId = await readPendingId(request);
  if (!(await getPendingSignup(pendingId))) throw redirect("/signup");
  const form = await readForm(request);
  try {
    if (form.get("intent") === "resend") {
      const next = await resendSignupCode(pendingId!, clientOf(context));
      return redirectWithSuccess("/verify-email", t("accounts.otpSent"), {
        headers: { "Set-Cookie": await pendingSignupCookie().serialize(next.pendingId) },
      });
    }
    const parsed = verifyCodeSchema.safeParse({ code: codeFromForm(form) });
    if (!parsed.success) return data({ error: t("accounts.otpInvalid") }, { status: 400 });
    await completeSignup(pendingId!, parsed.data.code, clientOf(context));
    return redirectWithSuccess("/login", t("accounts.signupSuccess"), {
      headers: { "Set-Cookie": await pendingSignupCookie().serialize("", { maxAge: 0 }) },
    });
  } catch (err) {
    const f = screenFailure(err, t);
    return data({ error: f.message }, { status: f.status, headers: f.headers });
  }
}

export default function VerifyEmail() {
  const { t } = useTranslation();
  const { email, phone } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const intent = navigation.formData?.get("intent");
  const verifying = navigation.state === "submitting" && intent === "verify";
  return (
    <AuthCard
      title={t(phone ? "accounts.verifyPhoneTitle" : "accounts.verifyTitle")}
      intro={<p>{phone ? t("accounts.verifyPhoneText", { phone }) : t("accounts.verifyText", { email })}</p>}
    >
      <Form method="post" className="space-y-5">
        <FormError id="otp-error" errors={result?.error ? [result.error] : null} />
        <OtpInput errorId="otp-error" invalid={!!result?.error} />
        <button
          type="submit"
          name="intent"
          value="verify"
          className="btn-primary w-full"
          disabled={verifying}
        >
          {verifying
            ? t("accounts.verifying")
            : t(phone ? "accounts.verifyPhoneButton" : "accounts.verifyButton")}
        </button>
      </Form>
      <Form method="post" className="mt-4 flex flex-wrap items-center justify-between gap-2 text-sm">
        <Link to="/login" className="link">
          ← {t("accounts.backToLogin")}
        </Link>
        <span>
          {t("accounts.didntGet")}{" "}
          <button type="submit" name="intent" value="resend" className="link min-h-11">
            {t("accounts.resend")}
          </button>
        </span>
      </Form>
      {!phone && (
        <p className="mt-4 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {t("accounts.spamHint")}
        </p>
      )}
    </AuthCard>
  );
}
