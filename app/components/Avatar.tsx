/** Initials from first and last name, with the spec's fallbacks 'unknown' and 'user'. */
export function initials(firstName?: string | null, lastName?: string | null): string {
  const first = (firstName?.trim() || "unknown")[0];
  const last = (lastName?.trim() || "user")[0];
  return `${first}${last}`.toUpperCase();
}

/** The user's picture, or an initials avatar drawn here (no outside service sees the name). */
export function Avatar({
  firstName,
  lastName,
  image,
  size = 40,
  decorative = false,
}: {
  firstName?: string | null;
  lastName?: string | null;
  image?: string | null;
  size?: number;
  /** Inside a control that is named already: the picture is decorative, the initials plain text. */
  decorative?: boolean;
}) {
  const name = `${firstName?.trim() || "unknown"} ${lastName?.trim() || "user"}`;
  if (image) {
    return (
      <img
        src={image}
        alt={decorative ? "" : name}
        width={size}
        height={size}
        className="rounded-full object-cover"
        style={{ width: size, height: size }}
      />
    );
  }
  return (
    <span
      role={decorative ? undefined : "img"}
      aria-label={decorative ? undefined : name}
      className="inline-flex items-center justify-center rounded-full bg-brand-700 font-bold text-white"
      style={{ width: size, height: size, fontSize: size * 0.4 }}
    >
      {initials(firstName, lastName)}
    </span>
  );
}
