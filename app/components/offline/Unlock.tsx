import { useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { unlockOutbox } from "~/offline/outbox.client";

/**
 * The outbox is locked on this phone (decision 0072): after a reload, an offline start or a code
 * sign-in. The password is checked here, by unwrapping the account's key; nothing is sent anywhere.
 * A phone with no key for her yet asks for one password sign-in instead (a code cannot make one).
 */
export function Unlock({
  accountId,
  state,
  onOpen,
}: {
  accountId: string;
  state: "password" | "earlier" | "sign-in";
  onOpen: () => void;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  const [wrong, setWrong] = useState(false);
  if (state === "sign-in")
    return (
      <p className="card mt-4" data-testid="outbox-unlock">
        {t("outboxLock.signInWithPassword")}
      </p>
    );
  return (
    <form
      className="card mt-4 space-y-3"
      data-testid="outbox-unlock"
      onSubmit={(e) => {
        e.preventDefault();
        const password = new FormData(e.currentTarget).get("password")?.toString() ?? "";
        const form = e.currentTarget;
        setBusy(true);
        setWrong(false);
        void unlockOutbox(accountId, password)
          .then((ok) => {
            if (ok) return onOpen();
            setWrong(true);
            form.reset();
          })
          .catch(() => setWrong(true))
          .finally(() => setBusy(false));
      }}
    >
      <h2 className="text-lg font-bold text-slate-900">{t("outboxLock.title")}</h2>
      <p>{t(state === "earlier" ? "outboxLock.earlierText" : "outboxLock.text")}</p>
      <div>
        <label htmlFor="outbox-password" className="field-label">
          {t("outboxLock.password")}
        </label>
        <input
          id="outbox-password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          maxLength={128}
          className="field-input"
          aria-invalid={wrong || undefined}
          aria-describedby={wrong ? "outbox-password-error" : undefined}
        />
        {wrong && (
          <p id="outbox-password-error" role="alert" className="field-error">
            {t("outboxLock.wrong")}
          </p>
        )}
      </div>
      <button type="submit" className="btn-primary" disabled={busy}>
        {busy ? t("outboxLock.unlocking") : t("outboxLock.unlock")}
      </button>
    </form>
  );
}
