/** The centred card the signed-out account screens share. */
export function AuthCard({
  title,
  intro,
  children,
  wide,
}: {
  title: string;
  intro?: React.ReactNode;
  children: React.ReactNode;
  wide?: boolean;
}) {
  return (
    <main
      id="main"
      className="flex flex-1 items-start justify-center bg-gradient-to-b from-brand-50 to-slate-50 px-3 py-8 sm:py-14"
    >
      <div className={`card w-full ${wide ? "max-w-xl" : "max-w-md"}`}>
        <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
        {intro && <div className="mt-2 text-slate-700">{intro}</div>}
        <div className="mt-6">{children}</div>
      </div>
    </main>
  );
}
