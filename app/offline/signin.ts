import { useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { keepPasswordForOutbox, takePassword, type Prepared } from "./pending.client";

/**
 * The longest a sign-in waits for the outbox's key to be prepared before it is sent anyway
 * (decision 0087): ~0.1 s on a laptop, about a second on a cheap phone; a phone slower still
 * signs in, and its dashboard makes the key as it did before.
 */
const PREPARE_MS = 8_000;

/**
 * The password sign-in form's submit handler (decisions 0072, 0087): before the form is sent, the
 * typed password is turned into a new key for this phone's outbox, stored wrapped (the slow PBKDF2
 * step), so the dashboard the sign-in leads to only hands it to the account — and a page load right
 * after the sign-in cannot lose it. The password and the wrapping key stay in the page's memory.
 * Without WebCrypto or IndexedDB the form goes at once, as before.
 *
 * `refused`: the action's answer when the sign-in was refused (wrong password, a limit, a fault);
 * what was prepared for it goes. The outbox code is fetched when the page opens (it also forgets
 * a key an earlier, unfinished sign-in left) and used only when the form is sent.
 */
export function useSignInSubmit(refused: unknown): {
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  preparing: boolean;
} {
  const submit = useSubmit();
  const [preparing, setPreparing] = useState(false);
  // What an earlier sign-in left goes first; the key this one prepares is stored after it.
  const cleared = useRef<Promise<unknown>>(Promise.resolve());
  const sending = useRef(false);
  useEffect(() => {
    cleared.current = import("./keys").then((m) => m.discardPrepared()).catch(() => {});
  }, []);
  useEffect(() => {
    if (!refused) return;
    const typed = takePassword();
    void typed?.prepared
      ?.then((p) => p && import("./keys").then((m) => m.discardPrepared(p.id)))
      .catch(() => {});
  }, [refused]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    const password = new FormData(form).get("password")?.toString() ?? "";
    if (!password || !globalThis.crypto?.subtle || typeof indexedDB === "undefined") {
      keepPasswordForOutbox(password);
      return;
    }
    event.preventDefault();
    if (sending.current) return; // Enter pressed again while it prepares: one sign-in
    sending.current = true;
    setPreparing(true);
    const prepared: Promise<Prepared | null> = cleared.current
      .then(() => import("./keys"))
      .then((m) => m.prepareKey(password))
      .catch(() => null);
    keepPasswordForOutbox(password, prepared);
    const enough = new Promise((ok) => setTimeout(ok, PREPARE_MS));
    void Promise.race([prepared, enough]).finally(() => {
      sending.current = false;
      setPreparing(false);
      submit(form);
    });
  };
  return { onSubmit, preparing };
}

/**
 * A sign-in without a password (an SMS code, decision 0072) makes no key: one an earlier,
 * unfinished password sign-in on this phone prepared goes when the page opens (decision 0087), so
 * no password but this account's own can become its key later.
 */
export function useNoPreparedKey(): void {
  useEffect(() => {
    void import("./keys").then((m) => m.discardPrepared()).catch(() => {});
  }, []);
}
