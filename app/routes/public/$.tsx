import { useTranslation } from "~/i18n/useTranslation";

/** Any unknown route: the spec's not-found text with status 404. */
export function loader() {
  throw new Response("Not Found", { status: 404 });
}

export default function NotFound() {
  const { t } = useTranslation();
  return <h1>{t("errors.notFound")}</h1>;
}
