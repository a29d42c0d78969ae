import { useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { SETTINGS } from "./shared";

/** One task's card on the settings screen; `danger` for the one that cannot be undone. */
export function Section({
  id,
  title,
  children,
  danger,
}: {
  id: string;
  title: string;
  children: React.ReactNode;
  danger?: boolean;
}) {
  return (
    <section aria-labelledby={id} className={`card ${danger ? "border-red-300" : ""}`}>
      <h2 id={id} className={`text-lg font-bold ${danger ? "text-red-800" : "text-slate-900"}`}>
        {title}
      </h2>
      <div className="mt-4">{children}</div>
    </section>
  );
}

export function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** Which form (by its intent) the current submission belongs to, if any. */
export function useBusyIntent() {
  const navigation = useNavigation();
  return navigation.state === "submitting" && navigation.formAction?.startsWith(SETTINGS)
    ? String(navigation.formData?.get("intent") ?? "")
    : null;
}
