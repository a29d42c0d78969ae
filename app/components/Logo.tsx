import { site } from "~/site";

export function LogoMark({ className = "h-8 w-8" }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={className} aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="#0b5f56" />
      <path d="M13 7h6v6h6v6h-6v6h-6v-6H7v-6h6z" fill="#fff" />
    </svg>
  );
}

/** `compact` hides the name on the narrowest phones (the mark and the link's label remain). */
export function Logo({ compact = false }: { compact?: boolean }) {
  return (
    <span className="inline-flex items-center gap-2 text-lg font-bold text-brand-800">
      <LogoMark />
      <span className={compact ? "max-[400px]:sr-only" : undefined}>{site.productName}</span>
    </span>
  );
}
