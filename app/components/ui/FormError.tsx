/** A form-level error (already translated), announced to screen readers. */
export function FormError({ id, errors }: { id: string; errors?: string[] | null }) {
  if (!errors?.length) return <div id={id} />;
  return (
    <div
      id={id}
      role="alert"
      className="rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm font-semibold text-red-800"
    >
      {errors[0]}
    </div>
  );
}
