import type { SubmissionResult } from "@conform-to/react";
import { useServerForm } from "~/components/ui/useServerForm";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { SecondFactorField } from "~/components/AccountFields";
import { FormError } from "~/components/ui/FormError";
import { PasswordField } from "~/components/ui/PasswordField";
import type { loader } from "./route";
import { Section, useBusyIntent, useHydrated } from "./Section";
import { SETTINGS } from "./shared";

export function DeleteSection({
  confirmFromServer,
  lastResult,
}: {
  confirmFromServer: boolean;
  lastResult?: SubmissionResult<string[]>;
}) {
  const { t } = useTranslation();
  const { twoStep, erasureNotice } = useLoaderData<typeof loader>();
  // Checked by the server (the page loads no zod; decision 0036): errors come back with its answer.
  const [form, fields] = useServerForm(lastResult, ["password", "proof", "immediate"], { id: "delete-form" });
  const hydrated = useHydrated();
  const busyIntent = useBusyIntent();
  const [confirming, setConfirming] = useState(false);
  const confirmRef = useRef<HTMLDivElement>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  const showConfirm = confirming || confirmFromServer;
  const wasShown = useRef(showConfirm);

  useEffect(() => setConfirming(confirmFromServer), [confirmFromServer]);
  useEffect(() => {
    if (showConfirm && !wasShown.current) confirmRef.current?.focus();
    if (!showConfirm && wasShown.current) startRef.current?.focus();
    wasShown.current = showConfirm;
  }, [showConfirm]);

  return (
    <Section id="delete-heading" title={t("profile.deleteTitle")} danger>
      {showConfirm ? (
        <div
          ref={confirmRef}
          tabIndex={-1}
          role="group"
          aria-labelledby="delete-confirm-title"
          aria-describedby="delete-confirm-text"
          className="rounded-lg border border-red-300 bg-red-50 p-4"
        >
          <h3 id="delete-confirm-title" className="font-bold text-red-900">
            {t("profile.deleteConfirmTitle")}
          </h3>
          <p id="delete-confirm-text" className="mt-1 text-red-900">
            {t("profile.deleteConfirmText")} {t("profile.deleteNoticeText", { notice: erasureNotice })}
          </p>
          <Form method="post" {...form.props} noValidate className="mt-4">
            <input type="hidden" name="intent" value="delete-confirm" />
            <FormError id={form.errorId} errors={form.errors} />
            <div className="mt-2 max-w-sm">
              <PasswordField
                meta={fields.password}
                label={t("profile.deletePasswordLabel")}
                autoComplete="current-password"
              />
            </div>
            {twoStep.enabled && (
              <div className="mt-2 max-w-sm">
                <SecondFactorField meta={fields.proof} />
              </div>
            )}
            <div className="mt-3 flex items-start gap-2">
              <input
                id={fields.immediate.id}
                name={fields.immediate.name}
                type="checkbox"
                className="mt-1 h-4 w-4"
                defaultChecked={fields.immediate.initialValue === "on"}
              />
              <label htmlFor={fields.immediate.id} className="text-red-900">
                {t("profile.deleteNowLabel", { notice: erasureNotice })}
              </label>
            </div>
            <div className="mt-4 flex flex-wrap gap-3">
              <button type="submit" className="btn-danger" disabled={busyIntent === "delete-confirm"}>
                {t("profile.deleteConfirmButton")}
              </button>
              {hydrated ? (
                <button type="button" className="btn-secondary" onClick={() => setConfirming(false)}>
                  {t("common.cancel")}
                </button>
              ) : (
                <Link to={SETTINGS} className="btn-secondary">
                  {t("common.cancel")}
                </Link>
              )}
            </div>
          </Form>
        </div>
      ) : (
        <Form
          method="post"
          onSubmit={(e) => {
            // With JavaScript the confirmation needs no round trip.
            e.preventDefault();
            setConfirming(true);
          }}
        >
          <input type="hidden" name="intent" value="delete" />
          <p className="max-w-prose text-slate-700">{t("profile.deleteText")}</p>
          <button ref={startRef} type="submit" className="btn-danger mt-4">
            {t("profile.deleteButton")}
          </button>
        </Form>
      )}
    </Section>
  );
}
