import { DocumentIcon } from "~/components/ui/Icon";

/** A calm empty list: what is (not) there, and optionally what to do next. */
export function EmptyState({ message, children }: { message: string; children?: React.ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
      <DocumentIcon className="mx-auto h-10 w-10 text-slate-400" lines />
      <p className="mt-3 text-lg font-semibold text-slate-700">{message}</p>
      {children && <div className="mt-4 flex flex-wrap justify-center gap-3">{children}</div>}
    </div>
  );
}
