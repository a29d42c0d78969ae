import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import type { Client } from "~/domain/platform/client";

/** The screen's own URL: every form posts here, and most answers redirect back to it. */
export const SETTINGS = "/dashboard/settings";

/** What route.tsx's action has already worked out, handed to each task's handler. */
export type IntentArgs = {
  formData: FormData;
  actor: Actor;
  t: TFunction;
  locale: string;
  client: Client;
};
