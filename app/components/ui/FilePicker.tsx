import { forwardRef, useState, type InputHTMLAttributes } from "react";
import { useHydrated } from "~/components/reports/useHydrated";
import { useTranslation } from "~/i18n/useTranslation";

type Props = Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "className"> & {
  id: string;
  /** Show the chosen file's name beside the button (false when the form says it elsewhere). */
  showName?: boolean;
};

/**
 * A file input whose button speaks the page's language: the browser's own button says "Choose File /
 * No file chosen" in the browser's language, whatever the page's. The native input stays in the
 * form, visually hidden (still focusable; its focus ring is drawn on the button), and the button is
 * its label, so choosing a file and sending it work without JavaScript; the chosen name is shown
 * once the page runs its script.
 */
export const FilePicker = forwardRef<HTMLInputElement, Props>(function FilePicker(
  { id, showName = true, onChange, disabled, ...rest },
  ref,
) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const [name, setName] = useState<string | null>(null);
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-3">
      <input
        {...rest}
        ref={ref}
        id={id}
        type="file"
        disabled={disabled}
        className="peer sr-only"
        onChange={(e) => {
          setName(e.currentTarget.files?.[0]?.name ?? null);
          onChange?.(e);
        }}
      />
      <label
        htmlFor={id}
        className={`btn-secondary cursor-pointer peer-focus-visible:outline-3 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600 ${
          disabled ? "pointer-events-none opacity-60" : ""
        }`}
        data-testid="file-picker-button"
      >
        {t("common.chooseFile")}
      </label>
      {showName && hydrated && (
        <span className="min-w-0 text-sm break-all text-slate-700" data-testid="file-picker-chosen">
          {name ?? t("common.noFileChosen")}
        </span>
      )}
    </div>
  );
});
