import type { SubmissionResult } from "@conform-to/react";
import { useLoaderData } from "@remix-run/react";
import { NoticeForm } from "~/components/care/NoticeForm";
import { useTranslation } from "~/i18n/useTranslation";
import type { loader } from "./route";
import { Section, useBusyIntent } from "./Section";

/** Patients: "call me" (decision 0080) — SMS, a call or both, and the part of the day a call may come. */
export function CallSection({ lastResult }: { lastResult?: SubmissionResult<string[]> }) {
  const { t } = useTranslation();
  const { calls } = useLoaderData<typeof loader>();
  const busy = useBusyIntent() === "calls";
  if (!calls) return null;
  return (
    <Section id="calls-heading" title={t("calls.title")}>
      <NoticeForm
        choice={calls}
        lastResult={lastResult}
        busy={busy}
        headingId="calls-heading"
        // The contact number of the Profile section above is the one calls go to (decision 0093).
        addPhone="#profile-heading"
      />
    </Section>
  );
}
