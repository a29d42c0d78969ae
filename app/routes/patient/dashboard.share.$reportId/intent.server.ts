import type { TFunction } from "i18next";
import type { Actor } from "~/domain/accounts/index.server";
import type { Client } from "~/domain/platform/client";

/** What each form's action gets from the route: who asks, for which report, from where, what was posted. */
export type IntentArgs = {
  actor: Actor;
  t: TFunction;
  client: Client;
  reportId: string;
  form: FormData;
};
