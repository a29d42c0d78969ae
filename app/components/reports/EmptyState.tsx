/** A calm empty list: what is (not) there, and optionally what to do next. */
export function EmptyState({ message, children }: { message: string; children?: React.ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
      <svg
        viewBox="0 0 24 24"
        className="mx-auto h-10 w-10 text-slate-400"
        aria-hidden="true"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M7 3h7l5 5v13H7zM14 3v5h5M10 13h6M10 17h4" />
      </svg>
      <p className="mt-3 text-lg font-semibold text-slate-700">{message}</p>
      {children && <div className="mt-4 flex flex-wrap justify-center gap-3">{children}</div>}
    </div>
  );
}
