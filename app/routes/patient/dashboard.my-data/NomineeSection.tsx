import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { NOMINEE_CONTACT_MAX, NOMINEE_NAME_MAX, NOMINEE_RELATIONSHIP_MAX } from "~/schemas/limits";
import type { loader } from "./route";
import { MY_DATA, Section, useBusy } from "./Section";

/** The nominee (actions: nominee.server.ts): the form, filled in when there is one, and Remove. */
export function NomineeSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { nominee } = useLoaderData<typeof loader>();
  const busy = useBusy("nominee");
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(lastResult, ["name", "relationship", "contact"], {
    id: "nominee-form",
    defaultValue: nominee
      ? { name: nominee.name, relationship: nominee.relationship, contact: nominee.contact }
      : undefined,
  });
  return (
    <Section id="nominee" title={t("rights.nomineeTitle")} intro={t("rights.nomineeIntro")}>
      {!nominee && <p className="mb-3 text-slate-700">{t("rights.noNomineeYet")}</p>}
      <Form method="post" action={MY_DATA} {...form.props} noValidate aria-labelledby="nominee-title">
        <input type="hidden" name="intent" value="nominee" />
        <FormError id={form.errorId} errors={form.errors} />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            meta={fields.name}
            label={t("rights.nomineeName")}
            required
            autoComplete="off"
            maxLength={NOMINEE_NAME_MAX}
          />
          <TextField
            meta={fields.relationship}
            label={t("rights.nomineeRelationship")}
            autoComplete="off"
            maxLength={NOMINEE_RELATIONSHIP_MAX}
          />
          <div className="sm:col-span-2">
            <TextField
              meta={fields.contact}
              label={t("rights.nomineeContact")}
              required
              autoComplete="off"
              inputMode="email"
              maxLength={NOMINEE_CONTACT_MAX}
            />
          </div>
        </div>
        <div className="mt-4 flex flex-wrap justify-end gap-3">
          <button type="submit" className="btn-primary" disabled={busy}>
            {busy ? t("rights.sending") : t("rights.nomineeSave")}
          </button>
        </div>
      </Form>
      {nominee && (
        <Form method="post" action={MY_DATA} className="mt-3 flex justify-end">
          <input type="hidden" name="intent" value="remove-nominee" />
          <button type="submit" className="btn-secondary">
            {t("rights.nomineeRemove")}
          </button>
        </Form>
      )}
    </Section>
  );
}
