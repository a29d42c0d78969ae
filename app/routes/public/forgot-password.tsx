import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { useServerForm } from "~/components/ui/useServerForm";
import { AuthCard } from "~/components/AuthCard";
import { EmailOrMobileField } from "~/components/AccountFields";
import { FormError } from "~/components/ui/FormError";
import { requestPasswordReset } from "~/domain/accounts/index.server";
import { tFor } from "~/i18n/i18n.server";
import { redirectWithSuccess } from "~/web/toast.server";
import { forgotSchema } from "~/schemas/auth";
import { knownDeviceOf, redirectIfSignedIn } from "~/web/auth.server";
import { parseForm } from "~/web/forms.server";
import { guardForm } from "~/web/guard.server";
import { formFailure } from "~/web/screen.server";
import { toasts } from "~/web/toast.server";
import { clientOf } from "~/web/request.server";

export async function loader({ request }: LoaderFunctionArgs) {
  await redirectIfSignedIn(request);
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardForm(request);
  const submission = await parseForm(request, forgotSchema);
  if (submission.status !== "success") {
    return Response.json({ result: submission.reply(), sentTo: null }, { status: 400 });
  }
  const { t, locale } = await tFor(request);
  try {
    await requestPasswordReset(submission.value, clientOf(context), locale, await knownDeviceOf(request));
    if (submission.value.phone) {
      // A phone account: the code comes by SMS and is entered with the new password.
      return redirectWithSuccess(
        `/reset-code?phone=${encodeURIComponent(submission.value.phone)}`,
        t("accounts.resetCodeSent"),
      );
    }
  } catch (err) {
    const res = formFailure(err, t, (o) => submission.reply(o));
    return Response.json({ result: res.data, sentTo: null }, res.init ?? undefined);
  }
  return toasts().jsonWithSuccess(
    { result: submission.reply(), sentTo: submission.value.email ?? "" },
    t("accounts.resetSent"),
  );
}

export default function ForgotPassword() {
  const { t } = useTranslation();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  // Checked by the server alone: the page loads no zod (decisions 0036, 0094).
  const [form, fields] = useServerForm(actionData?.result, ["email"], { id: "forgot" });
  const busy = navigation.state === "submitting";
  const sentTo = actionData?.sentTo;

  if (sentTo) {
    return (
      <AuthCard
        title={t("accounts.checkEmailTitle")}
        intro={<p>{t("accounts.checkEmailText", { email: sentTo })}</p>}
      >
        <Form method="post" className="space-y-4">
          <input type="hidden" name="email" value={sentTo} />
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {busy && <Spinner />}
            {busy ? t("accounts.sending") : t("accounts.resendEmail")}
          </button>
        </Form>
        <p className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {t("accounts.spamHint")}
        </p>
        <BackToLogin />
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t("accounts.forgotTitle")} intro={<p>{t("accounts.forgotText")}</p>}>
      <Form method="post" {...form.props} noValidate className="space-y-4">
        <FormError id={form.errorId} errors={form.errors} />
        <EmailOrMobileField meta={fields.email} />
        <button type="submit" className="btn-primary w-full" disabled={busy}>
          {busy && <Spinner />}
          {busy ? t("accounts.sending") : t("common.submit")}
        </button>
      </Form>
      <BackToLogin />
    </AuthCard>
  );
}

function BackToLogin() {
  const { t } = useTranslation();
  return (
    <p className="mt-4 text-center text-sm">
      <Link to="/login" className="link">
        ← {t("accounts.backToLoginPage")}
      </Link>
    </p>
  );
}

export function Spinner() {
  return (
    <span
      className="h-4 w-4 animate-spin rounded-full border-2 border-white border-t-transparent"
      aria-hidden="true"
    />
  );
}
