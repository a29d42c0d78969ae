import { parseFormData } from "~/schemas/strict";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useServerForm } from "~/components/ui/useServerForm";
import { AuthCard } from "~/components/AuthCard";
import { OtpInput } from "~/components/OtpInput";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import { requestPasswordReset, resetPasswordWithCode } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { phone as phoneSchema, resetByCodeFormSchema } from "~/schemas/auth";
import { knownDeviceOf, redirectIfSignedIn } from "~/web/auth.server";
import { codeFromForm, readForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { maskPhone } from "~/lib/phone.server";
import { clientOf } from "~/web/request.server";
import { formFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { messageText } from "~/i18n/message";

/**
 * A new password for a phone account: the 6-digit code sent by SMS from "Forgot
 * password", entered with the new password on one page.
 */
function phoneFrom(request: Request) {
  const parsed = phoneSchema.safeParse(new URL(request.url).searchParams.get("phone") ?? "");
  return parsed.success ? parsed.data : null;
}

export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  const phone = phoneFrom(request);
  if (!phone) throw redirect("/forgot-password");
  return { phone, masked: maskPhone(phone) };
}

const HIDDEN = ["password", "confirmPassword", "code"];

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const phone = phoneFrom(request);
  if (!phone) throw redirect("/forgot-password");
  const { t, locale } = await tFor(request);
  const form = await readForm(request);
  if (form.get("intent") === "resend") {
    try {
      await requestPasswordReset({ phone }, clientOf(context), locale, await knownDeviceOf(request));
    } catch (err) {
      // Only the form's message (e.g. the SMS limit): the fields were not filled for a resend.
      return formFailure(err, t, (o) => ({
        status: "error",
        initialValue: null,
        error: { "": o.formErrors ?? [] },
      }));
    }
    return redirectWithSuccess(`/reset-code?phone=${encodeURIComponent(phone)}`, t("accounts.resetCodeSent"));
  }
  form.set("code", codeFromForm(form));
  form.set("phone", phone);
  const submission = parseFormData(form, { schema: resetByCodeFormSchema });
  if (submission.status !== "success") {
    return Response.json(submission.reply({ hideFields: HIDDEN }), { status: 400 });
  }
  try {
    const v = submission.value;
    await resetPasswordWithCode(v.phone, v.code, v.password, clientOf(context));
  } catch (err) {
    return formFailure(err, t, (o) => submission.reply({ ...o, hideFields: HIDDEN }));
  }
  return redirectWithSuccess("/login", t("accounts.resetSuccess"));
}

export default function ResetCode() {
  const { t } = useTranslation();
  const { masked } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const navigation = useNavigation();
  // Checked by the server alone: the page loads no zod (decisions 0036, 0094).
  const [form, fields] = useServerForm(lastResult, ["code", "password", "confirmPassword"], {
    id: "reset-code",
  });
  const intent = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;
  const codeErrors = fields.code.errors?.map((e) => messageText(t, e)) ?? null;
  return (
    <AuthCard
      title={t("accounts.resetTitle")}
      intro={<p>{t("accounts.resetCodeText", { phone: masked })}</p>}
    >
      <Form method="post" {...form.props} noValidate className="space-y-4">
        <FormError id={form.errorId} errors={form.errors} />
        <FormError id="otp-error" errors={codeErrors} />
        <OtpInput errorId="otp-error" invalid={!!codeErrors} />
        <PasswordField meta={fields.password} label={t("profile.newPassword")} autoComplete="new-password" />
        <PasswordField
          meta={fields.confirmPassword}
          label={t("accounts.confirmPassword")}
          autoComplete="new-password"
        />
        <button type="submit" name="intent" value="reset" className="btn-primary w-full" disabled={!!intent}>
          {intent === "reset" ? t("accounts.resetting") : t("accounts.resetButton")}
        </button>
      </Form>
      <Form method="post" className="mt-4 text-sm">
        {t("accounts.didntGet")}{" "}
        <button type="submit" name="intent" value="resend" className="link min-h-11" disabled={!!intent}>
          {t("accounts.resend")}
        </button>
      </Form>
      <p className="mt-4 text-center text-sm">
        <Link to="/login" className="link">
          ← {t("accounts.backToLogin")}
        </Link>
      </p>
    </AuthCard>
  );
}
