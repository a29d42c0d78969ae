import { Link } from "@remix-run/react";
import { useTranslation } from "~/i18n/useTranslation";

/** One profile the signed-in account acts for (from the loader: care's `whoseOptions`). */
export type WhoseOption = { id: string; name: string; relationship: string; self: boolean };

const REL_KEYS: Record<string, string> = {
  daughter: "family.relDaughter",
  son: "family.relSon",
  father: "family.relFather",
  mother: "family.relMother",
  spouse: "family.relSpouse",
  other: "family.relOther",
};

/** "Daughter", "You": who a profile is to the account holder. */
export function useRelationshipLabel() {
  const { t } = useTranslation();
  return (o: Pick<WhoseOption, "relationship" | "self">) =>
    o.self ? t("family.you") : t(REL_KEYS[o.relationship] ?? "family.relOther");
}

/**
 * "Whose reports": plain links, one per profile the account acts for (its own and its family
 * members'), so switching works without JavaScript; the current one is marked for screen readers
 * too. Nothing is drawn when there is nobody to switch to.
 */
export function WhoseReports({
  options,
  current,
  hrefFor,
  label,
  reloadDocument,
}: {
  options: WhoseOption[];
  current?: string | null;
  hrefFor: (id: string) => string;
  /** The heading of the switcher (defaults to "Whose reports"). */
  label?: string;
  /** The links lead to a file (a download), not to a screen. */
  reloadDocument?: boolean;
}) {
  const { t } = useTranslation();
  const relation = useRelationshipLabel();
  if (options.length < 2) return null;
  const title = label ?? t("family.whoseReports");
  return (
    <nav aria-label={title} className="mb-5" data-testid="whose-reports">
      <p className="mb-2 text-sm font-semibold text-slate-700">{title}</p>
      <ul className="flex flex-wrap gap-2">
        {options.map((o) => {
          const here = o.id === current;
          return (
            <li key={o.id}>
              <Link
                to={hrefFor(o.id)}
                reloadDocument={reloadDocument}
                aria-current={here ? "page" : undefined}
                className={`inline-flex min-h-11 items-center gap-2 rounded-full border px-4 py-2 text-sm font-semibold ${
                  here
                    ? "border-brand-700 bg-brand-700 text-white"
                    : "border-slate-300 bg-white text-slate-800 hover:border-brand-700"
                }`}
              >
                <span>{o.name}</span>
                <span className={here ? "font-normal text-white" : "font-normal text-slate-600"}>
                  ({relation(o)})
                </span>
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
