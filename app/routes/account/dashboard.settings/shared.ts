/** The screen's own URL: every form posts here, and most answers redirect back to it. */
export const SETTINGS = "/dashboard/settings";

export type { IntentArgs } from "~/web/screen.server";
