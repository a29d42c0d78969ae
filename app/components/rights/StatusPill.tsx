/** A small status label: always a word, the colour only helps (green, amber, red, grey). */
export function StatusPill({
  tone,
  children,
}: {
  tone: "green" | "amber" | "red" | "grey" | "blue";
  children: React.ReactNode;
}) {
  const look = {
    green: "border-green-300 bg-green-100 text-green-900",
    amber: "border-amber-300 bg-amber-100 text-amber-950",
    red: "border-red-300 bg-red-100 text-red-900",
    grey: "border-slate-300 bg-slate-100 text-slate-800",
    blue: "border-sky-300 bg-sky-100 text-sky-900",
  }[tone];
  return (
    <span
      className={`inline-flex shrink-0 items-center rounded-full border px-2.5 py-0.5 text-sm font-semibold whitespace-nowrap ${look}`}
    >
      {children}
    </span>
  );
}

export const REQUEST_STATUS_KEYS = {
  open: "rights.statusOpen",
  done: "rights.statusDone",
  rejected: "rights.statusRejected",
  cancelled: "rights.statusCancelled",
} as const;

export const REQUEST_STATUS_TONES = {
  open: "amber",
  done: "green",
  rejected: "red",
  cancelled: "grey",
} as const;

export const REQUEST_TYPE_KEYS = {
  correction: "rights.typeCorrection",
  erasure: "rights.typeErasure",
} as const;
