import { log } from "~/lib/log.server";

/**
 * A process's background sender (the SMS outbox, the mail outbox, the PACS queue): a poll every
 * `pollMs` plus kicks; one round at a time, and a kick during a round runs another after it (a row
 * may have been queued after the round's last look). `stop()` ends the polling, tells the round it
 * is stopping and waits for it. The poll never keeps a stopping process alive (unref).
 */
export type BackgroundLoop = {
  /** Starts polling (idempotent) and runs a round now. */
  start(pollMs: number): void;
  /** Runs a round now, or after the running one; nothing when not started or stopping. */
  kick(): void;
  /** A new poll interval for a started loop (tests). */
  repoll(pollMs: number): void;
  stop(): Promise<void>;
  readonly started: boolean;
};

export function backgroundLoop(
  name: string,
  round: (stopping: () => boolean) => Promise<unknown>,
): BackgroundLoop {
  type State = { timer: NodeJS.Timeout; running: Promise<void> | null; again: boolean; stopping: boolean };
  let state: State | null = null;
  const loop: BackgroundLoop = {
    get started() {
      return state !== null;
    },
    start(pollMs) {
      if (state) return;
      state = { timer: setInterval(loop.kick, pollMs).unref(), running: null, again: false, stopping: false };
      loop.kick();
    },
    kick() {
      const s = state;
      if (!s || s.stopping) return;
      if (s.running) {
        s.again = true;
        return;
      }
      s.running = (async () => {
        do {
          s.again = false;
          try {
            await round(() => s.stopping);
          } catch (err) {
            log("error", `${name} failed`, { error: String((err as Error)?.message ?? err) });
          }
        } while (s.again && !s.stopping);
      })().finally(() => {
        s.running = null;
      });
    },
    repoll(pollMs) {
      if (!state) return;
      clearInterval(state.timer);
      state.timer = setInterval(loop.kick, pollMs).unref();
    },
    async stop() {
      const s = state;
      if (!s) return;
      state = null;
      s.stopping = true;
      clearInterval(s.timer);
      await s.running;
    },
  };
  return loop;
}
