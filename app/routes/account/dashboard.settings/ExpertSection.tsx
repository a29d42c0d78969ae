import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { ExpertDetailsFields } from "~/components/ExpertDetailsFields";
import { FormError } from "~/components/ui/FormError";
import type { loader } from "./route";
import { Section, useBusyIntent } from "./Section";

/** Experts: registration, council, years of practice and specialties; a rejected application is resubmitted by saving. */
export function ExpertSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { expert } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "expert-details";
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(
    lastResult,
    ["specialties", "registrationNumber", "registrationCouncil", "yearsOfPractice"],
    {
      id: "expert-details-form",
      defaultValue: expert
        ? ({
            specialties: expert.specialties,
            registrationNumber: expert.registrationNumber,
            registrationCouncil: expert.registrationCouncil,
            yearsOfPractice: expert.yearsOfPractice === null ? "" : String(expert.yearsOfPractice),
          } as any) // a checkbox group"s default is a list; Conform types it from the schema"s input
        : undefined,
    },
  );
  return (
    <Section id="expert-details-heading" title={t("experts.detailsTitle")}>
      {expert?.rejectedAt && (
        <p role="status" className="mb-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-amber-950">
          {t("dashboard.rejectedNotice", { reason: expert.rejectionReason ?? "" })}
        </p>
      )}
      <p className="mb-4 text-slate-700">{t("experts.detailsIntro")}</p>
      {expert?.approvedAt && <p className="mb-4 text-slate-700">{t("experts.changeNeedsReview")}</p>}
      <Form method="post" {...form.props} noValidate aria-labelledby="expert-details-heading">
        <input type="hidden" name="intent" value="expert-details" />
        <FormError id={form.errorId} errors={form.errors} />
        <ExpertDetailsFields
          fields={fields as unknown as Parameters<typeof ExpertDetailsFields>[0]["fields"]}
        />
        <div className="mt-5 flex justify-end">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("profile.saving") : t("experts.saveDetails")}
          </button>
        </div>
      </Form>
    </Section>
  );
}
