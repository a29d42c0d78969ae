import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";
import { formatDateTime } from "~/lib/format";
import type { loader } from "./route";
import { Section } from "./Section";

/** The account's browser sessions and API tokens, each revocable (OWASP ASVS V3). */
export function SessionsSection() {
  const { t, i18n } = useTranslation();
  const { sessions } = useLoaderData<typeof loader>();
  const others = sessions.filter((s) => !s.current).length;
  return (
    <Section id="sessions-title" title={t("profile.sessionsTitle")}>
      <p className="text-slate-700">{t("profile.sessionsIntro")}</p>
      <ul className="mt-4 divide-y divide-slate-200 rounded-lg border border-slate-200">
        {sessions.map((s) => (
          <li key={s.id} className="flex flex-wrap items-center gap-3 p-3">
            <div className="min-w-0 flex-1">
              <p className="font-semibold">
                {s.kind === "api" ? t("profile.sessionApi") : t("profile.sessionWeb")}
                {s.current && (
                  <span className="ml-2 rounded bg-green-100 px-2 py-0.5 text-xs font-bold text-green-800">
                    {t("profile.sessionCurrent")}
                  </span>
                )}
              </p>
              <p className="truncate text-sm text-slate-600" title={s.userAgent ?? undefined}>
                {s.userAgent || t("profile.unknownDevice")}
              </p>
              <p className="text-sm text-slate-600">
                {t("profile.sessionCreated", { date: formatDateTime(s.createdAt, i18n.language) })} ·{" "}
                {t("profile.sessionLastUsed", { date: formatDateTime(s.lastSeenAt, i18n.language) })}
              </p>
            </div>
            {!s.current && (
              <Form method="post">
                <input type="hidden" name="intent" value="revoke-session" />
                <input type="hidden" name="sessionId" value={s.id} />
                <button type="submit" className="btn-secondary text-sm">
                  {t("profile.revoke")}
                </button>
              </Form>
            )}
          </li>
        ))}
      </ul>
      {others > 0 && (
        <Form method="post" className="mt-4">
          <input type="hidden" name="intent" value="revoke-others" />
          <button type="submit" className="btn-secondary">
            {t("profile.revokeOthers")}
          </button>
        </Form>
      )}
    </Section>
  );
}
