import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { AuthCard } from "~/components/AuthCard";
import { useDateText } from "~/components/reports/LocalDate";
import { screenMeta } from "~/components/reports/meta";
import { reportTakeOver, takeOverByToken } from "~/domain/care/index.server";
import { tFor } from "~/i18n/i18n.server";
import { useTranslation } from "~/i18n/useTranslation";
import { guardForm } from "~/web/guard.server";
import { clientOf } from "~/web/request.server";
import { pageError, toastFailure } from "~/web/screen.server";
import { redirectWithSuccess } from "~/web/toast.server";

/**
 * "This was not me" (decision 0055): the link a completed take-over sent to the previous number,
 * the managers and the centre. Signed out and without JavaScript: when it happened, and one button
 * that reports it to the admins (who may undo it for 7 days). An unknown link is the not-found page.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { t } = await tFor(request);
  let takeOver: Awaited<ReturnType<typeof takeOverByToken>>;
  try {
    takeOver = await takeOverByToken(params.token ?? "", clientOf(context));
  } catch (err) {
    pageError(err);
  }
  return { title: t("family.notMeTitle"), takeOver };
}

export const meta: MetaFunction<typeof loader> = screenMeta;

export async function action({ request, params, context }: ActionFunctionArgs) {
  await guardForm(request);
  const { t } = await tFor(request);
  const here = new URL(request.url).pathname;
  try {
    await reportTakeOver(params.token ?? "", clientOf(context));
  } catch (err) {
    return toastFailure(err, t, here);
  }
  return redirectWithSuccess(here, t("family.notMeDone"));
}

export default function NotMe() {
  const { t } = useTranslation();
  const { takeOver } = useLoaderData<typeof loader>();
  const { dateTime } = useDateText();
  const busy = useNavigation().state === "submitting";
  return (
    <AuthCard title={t("family.notMeTitle")}>
      <p className="mb-4">{t("family.notMeIntro", { date: dateTime(takeOver.createdAt) })}</p>
      {takeOver.undone ? (
        <p role="status" className="font-semibold">
          {t("family.notMeUndone")}
        </p>
      ) : takeOver.reported ? (
        <p role="status" className="font-semibold" data-testid="not-me-reported">
          {t("family.notMeDone")}
        </p>
      ) : (
        <Form method="post">
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {t("family.notMeButton")}
          </button>
        </Form>
      )}
    </AuthCard>
  );
}
