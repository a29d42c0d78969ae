/**
 * The app's line icons: 24×24 strokes in the text colour, hidden from screen readers (the link or
 * button beside them carries the words).
 */
export function Icon({
  className = "h-5 w-5",
  strokeWidth = 1.8,
  children,
}: {
  className?: string;
  strokeWidth?: number;
  children: React.ReactNode;
}) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={className}
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth={strokeWidth}
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      {children}
    </svg>
  );
}

/** A document (a PDF report); `lines` draws text on the page, for larger sizes. */
export function DocumentIcon({ className, lines }: { className?: string; lines?: boolean }) {
  return (
    <Icon className={className} strokeWidth={lines ? 1.6 : 1.8}>
      <path d={lines ? "M7 3h7l5 5v13H7zM14 3v5h5M10 13h6M10 17h4" : "M7 3h7l5 5v13H7zM14 3v5h5"} />
    </Icon>
  );
}

/** An eye (seen by, show password); `crossed` strikes it through (hide password). */
export function EyeIcon({ className, crossed }: { className?: string; crossed?: boolean }) {
  return (
    <Icon className={className}>
      <path d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z" />
      <circle cx="12" cy="12" r="3" />
      {crossed && <path d="M4 20 20 4" />}
    </Icon>
  );
}
