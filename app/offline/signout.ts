import { useSubmit } from "@remix-run/react";
import type { FormEvent } from "react";

/**
 * A sign-out form's submit handler (decisions 0063, 0072): this phone forgets who is signed in,
 * the synced lists and the unlocked key first, then the form is posted. The page does it itself —
 * a service worker may not control it (the first visit, a private window, a blocked worker) — and
 * waits at most two seconds for it. The outbox code is fetched only when the form is sent.
 */
export function useSignOutSubmit(): (event: FormEvent<HTMLFormElement>) => void {
  const submit = useSubmit();
  return (event) => {
    const form = event.currentTarget;
    event.preventDefault();
    const forget = import("./outbox.client").then((m) => m.forgetSession());
    const enough = new Promise((ok) => setTimeout(ok, 2_000));
    void Promise.race([forget, enough])
      .catch(() => {})
      .finally(() => submit(form));
  };
}
