/** "+91 9876543210" from a user's country code and number (either may be missing). */
export function contactOf(u: { contactNumber?: string | null; countryCode?: string | null }): string {
  if (!u.contactNumber) return "";
  return u.countryCode && !u.contactNumber.startsWith("+")
    ? `${u.countryCode} ${u.contactNumber}`
    : u.contactNumber;
}

/** An account type in the UI language (audit.roles.*). */
export function roleKey(type: string | null | undefined): string {
  return type === "Expert"
    ? "audit.roles.expert"
    : type === "Admin"
      ? "audit.roles.admin"
      : type === "HealthWorker"
        ? "care.healthWorkerTitle"
        : "audit.roles.patient";
}
