/** The one <h1> of a dashboard page, with an optional short introduction. */
export function PageHeader({
  title,
  intro,
  children,
}: {
  title: string;
  intro?: string;
  children?: React.ReactNode;
}) {
  return (
    <header className="mb-5 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">{title}</h1>
        {intro && <p className="mt-1 max-w-prose text-slate-700">{intro}</p>}
      </div>
      {children}
    </header>
  );
}
