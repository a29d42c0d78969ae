import { useRef } from "react";
import { useTranslation } from "~/i18n/useTranslation";

/**
 * Six single-digit boxes. Typing moves to the next box, Backspace on an empty box goes back,
 * pasting six digits fills all. Without JavaScript they are six plain inputs (d1..d6).
 */
export function OtpInput({ errorId, invalid }: { errorId?: string; invalid?: boolean }) {
  const { t } = useTranslation();
  const refs = useRef<(HTMLInputElement | null)[]>([]);

  const fill = (from: number, digits: string) => {
    digits
      .replace(/\D/g, "")
      .slice(0, 6 - from)
      .split("")
      .forEach((d, i) => {
        const el = refs.current[from + i];
        if (el) el.value = d;
      });
    const next = Math.min(from + digits.replace(/\D/g, "").length, 5);
    refs.current[next]?.focus();
  };

  return (
    <fieldset aria-describedby={errorId}>
      <legend className="field-label">{t("accounts.codeLabel")}</legend>
      <div className="flex justify-between gap-2">
        {Array.from({ length: 6 }, (_, i) => (
          <input
            key={i}
            ref={(el) => {
              refs.current[i] = el;
            }}
            name={`d${i + 1}`}
            aria-label={t("accounts.digitLabel", { n: i + 1 })}
            inputMode="numeric"
            autoComplete={i === 0 ? "one-time-code" : "off"}
            pattern="[0-9]"
            maxLength={i === 0 ? 6 : 1}
            aria-invalid={invalid || undefined}
            className="field-input h-14 w-full max-w-14 text-center text-2xl font-bold"
            onInput={(e) => {
              const v = e.currentTarget.value.replace(/\D/g, "");
              if (v.length > 1) {
                fill(i, v);
                return;
              }
              e.currentTarget.value = v;
              if (v && i < 5) refs.current[i + 1]?.focus();
            }}
            onKeyDown={(e) => {
              if (e.key === "Backspace" && !e.currentTarget.value && i > 0) {
                e.preventDefault();
                const prev = refs.current[i - 1];
                if (prev) {
                  prev.value = "";
                  prev.focus();
                }
              } else if (e.key === "ArrowLeft" && i > 0) refs.current[i - 1]?.focus();
              else if (e.key === "ArrowRight" && i < 5) refs.current[i + 1]?.focus();
            }}
            onPaste={(e) => {
              const text = e.clipboardData.getData("text");
              if (/\d/.test(text)) {
                e.preventDefault();
                fill(i, text);
              }
            }}
          />
        ))}
      </div>
    </fieldset>
  );
}
