import { useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { useDateText } from "~/components/reports/LocalDate";
import { useHydrated } from "~/components/reports/useHydrated";

/** What the create action answers about the link it made: the only time the address is shown. */
export type Created = { url: string; expiresAt: string; passcode: boolean; label: string };

/** The new link, shown this once: selectable text without JavaScript, a copy (and send) button with it. */
export function NewLink({ created }: { created: Created }) {
  const { t } = useTranslation();
  const dates = useDateText();
  const hydrated = useHydrated();
  const input = useRef<HTMLTextAreaElement>(null);
  const [state, setState] = useState<"" | "copied" | "failed">("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.url);
      setState("copied");
    } catch {
      input.current?.select();
      let ok = false;
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      setState(ok ? "copied" : "failed");
    }
  };
  const canSend = hydrated && typeof navigator !== "undefined" && typeof navigator.share === "function";
  return (
    <section
      aria-labelledby="new-link-title"
      className="rounded-xl border-2 border-green-600 bg-green-50 p-5"
      data-testid="new-link"
    >
      <h2 id="new-link-title" className="text-lg font-bold text-green-900">
        {t("share.created")}
      </h2>
      <p className="mt-1 text-green-950">{t("share.createdHint")}</p>
      <label htmlFor="new-link-url" className="field-label mt-3">
        {t("share.linkLabel")}
      </label>
      {/* The whole link, wrapped and selectable (a long press selects it on a phone without JavaScript). */}
      <textarea
        ref={input}
        id="new-link-url"
        readOnly
        rows={2}
        value={created.url}
        onFocus={(e) => e.currentTarget.select()}
        className="field-input resize-none font-mono text-sm break-all"
        data-testid="new-link-url"
      />
      <p className="mt-2 text-sm text-green-950">
        {t("share.worksUntil", { date: dates.dateTime(created.expiresAt) })}
      </p>
      {created.passcode && <p className="mt-1 font-semibold text-green-950">{t("share.createdPasscode")}</p>}
      {hydrated && (
        <div className="mt-3 flex flex-wrap gap-3">
          <button type="button" className="btn-primary" onClick={copy}>
            {t("share.copy")}
          </button>
          {canSend && (
            <button
              type="button"
              className="btn-secondary"
              onClick={() => navigator.share({ url: created.url }).catch(() => {})}
            >
              {t("share.send")}
            </button>
          )}
        </div>
      )}
      <p role="status" className="mt-2 text-sm font-semibold text-green-900">
        {state === "copied" ? t("share.copied") : state === "failed" ? t("share.copyFailed") : ""}
      </p>
    </section>
  );
}
