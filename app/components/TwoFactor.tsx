import { Link } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { site } from "~/site";
import { formatDateTime } from "~/lib/format";

/** Two-step login (decision 0017): the pieces the login, Settings and the two-step page share. */

export type SetupView = { secret: string; otpauthUrl: string; qrCode: string };
export type TwoStepStatus = {
  enabled: boolean;
  pending: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
  required: boolean;
};

/** "JBSWY3DPEHPK3PXP" → "JBSW Y3DP EHPK 3PXP": easier to read and type (apps ignore the spaces). */
function grouped(secret: string) {
  return secret.match(/.{1,4}/g)?.join(" ") ?? secret;
}

/** Steps 1 and 2 of a setup: the app, and the QR code (an image: no JavaScript needed) or the key as text. */
export function SetupSteps({ setup }: { setup: SetupView }) {
  const { t } = useTranslation();
  return (
    <ol className="space-y-5">
      <li>
        <h2 className="font-bold text-slate-900">{t("mfa.step1Title")}</h2>
        <p className="mt-1 max-w-prose text-slate-700">{t("mfa.step1Text")}</p>
      </li>
      <li>
        <h2 className="font-bold text-slate-900">{t("mfa.step2Title")}</h2>
        <div className="mt-2 flex flex-col gap-4 sm:flex-row sm:items-start">
          <img
            src={setup.qrCode}
            width={208}
            height={208}
            alt={t("mfa.qrAlt", { product: site.productName })}
            className="h-52 w-52 shrink-0 self-center rounded-lg border border-slate-200 bg-white p-1 sm:self-start"
          />
          <div className="min-w-0">
            <p className="text-slate-700">{t("mfa.manualEntry")}</p>
            <p className="mt-2 text-sm font-semibold text-slate-800" id="mfa-secret-label">
              {t("mfa.secretLabel")}
            </p>
            <code
              data-testid="mfa-secret"
              aria-labelledby="mfa-secret-label"
              className="mt-1 block rounded-lg bg-slate-100 px-3 py-2 font-mono text-base tracking-wide break-words text-slate-900 select-all"
            >
              {grouped(setup.secret)}
            </code>
            <p className="mt-2 text-sm text-slate-600">{t("mfa.manualDetails")}</p>
            {/* On the phone that holds the app, the otpauth: link opens it with the key filled in. */}
            <a href={setup.otpauthUrl} className="btn-secondary mt-3">
              {t("mfa.openInApp")}
            </a>
          </div>
        </div>
      </li>
    </ol>
  );
}

/** The recovery codes, shown once after they are made, with a plain-text download (no JavaScript needed). */
export function RecoveryCodeList({ codes }: { codes: string[] }) {
  const { t } = useTranslation();
  const heading = useRef<HTMLHeadingElement>(null);
  // After a submit with JavaScript the page keeps its scroll position: bring the codes into view.
  useEffect(() => heading.current?.focus(), []);
  const text = `${site.productName} — ${t("mfa.recoveryTitle")}\n\n${codes.join("\n")}\n`;
  return (
    <section
      aria-labelledby="recovery-title"
      className="rounded-xl border-2 border-amber-400 bg-amber-50 p-4 sm:p-5"
      data-testid="recovery-codes"
    >
      <h2 id="recovery-title" ref={heading} tabIndex={-1} className="text-lg font-bold text-slate-900">
        {t("mfa.recoveryTitle")}
      </h2>
      <p className="mt-1 max-w-prose text-slate-800">{t("mfa.recoveryText")}</p>
      <ol className="mt-4 grid grid-cols-1 gap-2 font-mono text-lg min-[420px]:grid-cols-2">
        {codes.map((c) => (
          <li
            key={c}
            className="rounded-md border border-amber-200 bg-white px-3 py-1.5 text-center tracking-wider"
          >
            {c}
          </li>
        ))}
      </ol>
      <a
        className="btn-secondary mt-4"
        download={`${site.productName.toLowerCase()}-recovery-codes.txt`}
        href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`}
      >
        {t("mfa.download")}
      </a>
    </section>
  );
}

/** Settings: the "Two-step login" section — its state, and the way to set it up or manage it. */
export function TwoStepSection({ status }: { status: TwoStepStatus }) {
  const { t, i18n } = useTranslation();
  return (
    <section aria-labelledby="two-step-heading" className="card">
      <h2 id="two-step-heading" className="text-lg font-bold text-slate-900">
        {t("mfa.title")}
        {status.enabled && (
          <span className="ml-2 rounded bg-green-100 px-2 py-0.5 align-middle text-xs font-bold text-green-800">
            {t("mfa.onBadge")}
          </span>
        )}
      </h2>
      <div className="mt-4 space-y-3">
        {status.enabled ? (
          <>
            <p className="text-slate-700">
              {status.enabledAt
                ? t("mfa.onSince", { date: formatDateTime(status.enabledAt, i18n.language) })
                : t("mfa.onBadge")}
            </p>
            <p className={status.recoveryCodesLeft <= 2 ? "font-semibold text-red-800" : "text-slate-700"}>
              {t("mfa.codesLeft", { count: status.recoveryCodesLeft })}
            </p>
            <Link to="/dashboard/two-step" className="btn-secondary">
              {t("mfa.manage")}
            </Link>
          </>
        ) : (
          <>
            <p className="max-w-prose text-slate-700">{t("mfa.intro")}</p>
            {status.required && <p className="font-semibold text-slate-900">{t("mfa.requiredNote")}</p>}
            {status.pending ? (
              <Link to="/dashboard/two-step" className="btn-primary">
                {t("mfa.continueSetup")}
              </Link>
            ) : (
              // The setup page asks for the password first: a session left open alone cannot set up a factor.
              <Link to="/dashboard/two-step" className="btn-primary">
                {t("mfa.setUp")}
              </Link>
            )}
          </>
        )}
      </div>
    </section>
  );
}
