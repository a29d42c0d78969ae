import type { SubmissionResult } from "@conform-to/react";
import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { TextField } from "~/components/ui/Field";
import { FormError } from "~/components/ui/FormError";
import { SelectField } from "~/components/ui/Select";
import { CENTRE_KINDS } from "~/db/types";
import { useServerForm } from "~/components/ui/useServerForm";
import { CENTRE_KIND_KEYS, CENTRE_NAME_MAX, PLACE_MAX } from "~/schemas/limits";

export type CentreValues = { name: string; kind: string; district: string; state: string; pinCode: string };

/**
 * A centre's name, kind and place: the same form creates one (the centres list) and edits one (the
 * centre's page). A plain POST with an intent, so it works without JavaScript.
 */
export function CentreForm({
  id,
  intent,
  lastResult,
  values,
  submitLabel,
}: {
  id: string;
  intent: "create" | "update";
  lastResult?: SubmissionResult<string[]>;
  values?: CentreValues;
  submitLabel: string;
}) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  // Checked by the server alone: the centres screen loads no zod (decision 0094).
  const [form, fields] = useServerForm(lastResult, ["name", "kind", "district", "state", "pinCode"], {
    id,
    defaultValue: values ?? { kind: "hwc" },
  });
  return (
    <Form method="post" {...form.props} noValidate className="space-y-4">
      <input type="hidden" name="intent" value={intent} />
      <FormError id={form.errorId} errors={form.errors} />
      <div className="grid gap-4 sm:grid-cols-2">
        <div className="sm:col-span-2">
          <TextField
            meta={fields.name}
            label={t("centres.name")}
            hint={t("centres.nameHint")}
            required
            autoComplete="off"
            maxLength={CENTRE_NAME_MAX}
          />
        </div>
        <SelectField
          meta={fields.kind}
          label={t("centres.kind")}
          required
          options={CENTRE_KINDS.map((k) => ({ value: k, label: t(CENTRE_KIND_KEYS[k]) }))}
        />
        <TextField
          meta={fields.pinCode}
          label={t("centres.pinCode")}
          hint={t("centres.pinHint")}
          required
          inputMode="numeric"
          autoComplete="off"
          maxLength={6}
        />
        <TextField
          meta={fields.district}
          label={t("centres.district")}
          required
          autoComplete="off"
          maxLength={PLACE_MAX}
        />
        <TextField
          meta={fields.state}
          label={t("centres.state")}
          required
          autoComplete="off"
          maxLength={PLACE_MAX}
        />
      </div>
      <button type="submit" className="btn-primary w-full sm:w-auto" disabled={busy}>
        {submitLabel}
      </button>
    </Form>
  );
}
