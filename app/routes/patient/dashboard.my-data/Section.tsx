import { useNavigation } from "@remix-run/react";

/** The screen's address: every form of My data posts here with its intent. */
export const MY_DATA = "/dashboard/my-data";

/** True while this screen's form with `intent` is being sent (its button waits). */
export function useBusy(intent: string) {
  const navigation = useNavigation();
  return (
    navigation.state === "submitting" &&
    !!navigation.formAction?.startsWith(MY_DATA) &&
    navigation.formData?.get("intent") === intent
  );
}

/** One card of the screen, its heading the target of the jump links (`#id`). */
export function Section({
  id,
  title,
  intro,
  danger,
  children,
}: {
  id: string;
  title: string;
  intro?: string;
  danger?: boolean;
  children: React.ReactNode;
}) {
  return (
    <section
      id={id}
      aria-labelledby={`${id}-title`}
      className={`card scroll-mt-4 ${danger ? "border-red-300" : ""}`}
    >
      <h2 id={`${id}-title`} className={`text-xl font-bold ${danger ? "text-red-800" : "text-slate-900"}`}>
        {title}
      </h2>
      {intro && <p className="mt-1 max-w-prose text-slate-700">{intro}</p>}
      <div className="mt-4">{children}</div>
    </section>
  );
}
