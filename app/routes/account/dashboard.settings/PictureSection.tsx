import { Form } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import { useLoaderData } from "@remix-run/react";
import { Avatar } from "~/components/Avatar";
import { DISPLAY_PICTURE_MAX_BYTES } from "~/schemas/limits";
import type { loader } from "./route";
import { Section, useBusyIntent, useHydrated } from "./Section";

/** What the picker offers; the server decides the real type from the bytes (file-types.server). */
const PICTURE_ACCEPT = "image/png,image/gif,image/jpeg,image/webp,.png,.gif,.jpeg,.jpg,.webp";
const PICTURE_TYPES = ["image/png", "image/gif", "image/jpeg", "image/webp"];

export function PictureSection({
  serverError,
  serverValues,
}: {
  serverError?: string;
  serverValues?: Record<string, string | number>;
}) {
  const { t, i18n } = useTranslation();
  const { firstName, lastName, image } = useLoaderData<typeof loader>();
  const hydrated = useHydrated();
  const busy = useBusyIntent() === "picture";
  const inputRef = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<{ name: string; size: number; url: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(
    () => () => {
      if (chosen) URL.revokeObjectURL(chosen.url);
    },
    [chosen],
  );
  // A new saved picture (after the redirect) clears the picker.
  useEffect(() => {
    setChosen(null);
    setError(null);
    if (inputRef.current) inputRef.current.value = "";
  }, [image]);
  useEffect(() => setError(null), [serverError]);

  const onChange = (e: React.ChangeEvent<HTMLInputElement>) => {
    const file = e.currentTarget.files?.[0];
    if (!file) {
      setChosen(null);
      return;
    }
    if (!PICTURE_TYPES.includes(file.type)) {
      setError("profile.pictureBadType");
      setChosen(null);
      return;
    }
    if (file.size > DISPLAY_PICTURE_MAX_BYTES) {
      setError("profile.pictureTooLarge");
      setChosen(null);
      return;
    }
    setError(null);
    setChosen({ name: file.name, size: file.size, url: URL.createObjectURL(file) });
  };
  const onSubmit = (e: React.FormEvent<HTMLFormElement>) => {
    const file = inputRef.current?.files?.[0];
    if (!file) {
      e.preventDefault();
      setError("profile.pictureRequired");
      inputRef.current?.focus();
    } else if (error) {
      e.preventDefault();
    }
  };

  const shownError = error ?? serverError ?? null;
  const size = chosen
    ? new Intl.NumberFormat(i18n.language, {
        style: "unit",
        unit: "kilobyte",
        maximumFractionDigits: 0,
      }).format(Math.max(1, Math.round(chosen.size / 1024)))
    : "";
  return (
    <Section id="picture-heading" title={t("profile.displayPicture")}>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
        {chosen ? (
          <img
            src={chosen.url}
            alt=""
            width={78}
            height={78}
            className="h-[78px] w-[78px] shrink-0 rounded-full object-cover"
          />
        ) : (
          <Avatar firstName={firstName} lastName={lastName} image={image} size={78} />
        )}
        <Form
          method="post"
          encType="multipart/form-data"
          id="picture-form"
          onSubmit={onSubmit}
          className="min-w-0 flex-1"
          aria-labelledby="picture-heading"
        >
          <input type="hidden" name="intent" value="picture" />
          <div className="flex flex-wrap items-center gap-3">
            <input
              ref={inputRef}
              id="displayPicture"
              name="displayPicture"
              type="file"
              accept={PICTURE_ACCEPT}
              onChange={onChange}
              aria-invalid={shownError ? true : undefined}
              aria-describedby={`picture-hint${shownError ? " picture-error" : ""}`}
              // The browser's own button speaks its language, not the page's: hidden, and labelled by
              // the button below (choosing and sending still work without JavaScript).
              className="peer sr-only"
            />
            <label
              htmlFor="displayPicture"
              className="btn-secondary cursor-pointer peer-focus-visible:outline-3 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-brand-600"
            >
              {t("profile.select")}
            </label>
            <button type="submit" className="btn-primary" disabled={busy}>
              {busy ? t("profile.uploading") : t("profile.upload")}
            </button>
          </div>
          {hydrated && (
            <p className="mt-2 text-sm break-all text-slate-800" aria-live="polite">
              {chosen ? `${chosen.name} (${size})` : t("profile.noFileChosen")}
            </p>
          )}
          <p id="picture-hint" className="mt-1 text-sm text-slate-600">
            {t("profile.pictureHint")}
          </p>
          {shownError && (
            <p id="picture-error" className="field-error" role="alert">
              {t(shownError, error ? {} : (serverValues ?? {}))}
            </p>
          )}
        </Form>
      </div>
    </Section>
  );
}
