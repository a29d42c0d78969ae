import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import type { Readable } from "node:stream";
import { StoreFault } from "./faults.server";

/*
 * How long CareBridge waits for an S3-compatible store (decision 0075). A store that hangs (a
 * frozen process, a host gone without a word, a network that drops packets) never refuses: every
 * wait on it needs an end, or the person's upload or download waits as long as the hang lasts.
 */

export const MAX_ATTEMPTS = 3;

/**
 * The SDK's retries (up to 3 attempts when the store throttles or fails on its side, after a short
 * growing pause) but none after a time-out: a store that did not answer within its limit is hung,
 * and a second wait as long would only hold the person longer before the 503 that tells her
 * client when to try again.
 */
export const RETRIES = {
  async acquireInitialRetryToken() {
    return retryToken(0, 0);
  },
  async refreshRetryTokenForRetry(
    token: { getRetryCount(): number },
    info: { errorType: string; error?: { name?: string } },
  ) {
    const attempt = token.getRetryCount() + 1;
    const retryable = info.errorType === "TRANSIENT" || info.errorType === "THROTTLING";
    if (!retryable || info.error?.name === "TimeoutError" || attempt >= MAX_ATTEMPTS)
      throw new Error("not retried");
    return retryToken(attempt, Math.round(Math.random() * 100 * 2 ** attempt));
  },
  recordSuccess() {},
} as unknown as NonNullable<S3ClientConfig["retryStrategy"]>;

function retryToken(count: number, delayMs: number) {
  return { getRetryCount: () => count, getRetryDelay: () => delayMs };
}

/** The slowest link to the store a request with a body is given time for: 1 MiB a second (8 Mbit/s). */
const BODY_BYTES_PER_SECOND = 1024 * 1024;

type Handler = { handle(request: { headers?: Record<string, string> }, options?: object): Promise<unknown> };

/**
 * Every request of `client` gets a deadline for its answer's first byte: `waitMs`, plus a second
 * per MiB of body it sends (an upload's part: 5 MiB, so 5 s more). Not an idle limit on the
 * socket: Node sees a socket idle while the kernel's send buffer (megabytes) drains over a slow
 * link, and while a reader pauses a download. The client also needs `connectionTimeout` and
 * `throwOnRequestTimeout` in its handler's options.
 */
export function withDeadlines(client: S3Client, waitMs: number) {
  const handler = client.config.requestHandler as unknown as Handler;
  const handle = handler.handle.bind(handler);
  handler.handle = (request, options) => {
    const bodyBytes = Number(request.headers?.["content-length"] ?? request.headers?.["Content-Length"] ?? 0);
    const deadline =
      waitMs + Math.ceil((1000 * (Number.isFinite(bodyBytes) ? bodyBytes : 0)) / BODY_BYTES_PER_SECOND);
    return handle(request, { ...options, requestTimeout: deadline });
  };
}

/**
 * An object's bytes, failing with a StoreFault (503 when nothing was sent yet, decision 0060)
 * when the store sends nothing for `ms` while they are wanted. Time the reader spends not asking
 * (a phone on a slow network) does not count.
 */
export async function* unstalled(body: Readable, ms: number): AsyncGenerator<Buffer> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  try {
    for (;;) {
      const next = await new Promise<IteratorResult<Buffer>>((resolve, reject) => {
        timer = setTimeout(() => {
          const cause = Object.assign(new Error(`the file store sent nothing for ${ms} ms`), {
            name: "TimeoutError",
          });
          reject(new StoreFault("unavailable", { cause }));
        }, ms);
        chunks.next().then(resolve, reject);
      }).finally(() => clearTimeout(timer));
      if (next.done) {
        ended = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!ended) body.destroy();
  }
}
