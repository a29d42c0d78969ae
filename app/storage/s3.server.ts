import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { config, type StorageConfig } from "~/config.server";
import type { BlobStore } from "./blob.server";
import { MAX_ATTEMPTS, RETRIES, unstalled, withDeadlines } from "./s3-waits.server";

type S3Config = Extract<StorageConfig, { kind: "s3" }>;

const OBJECT_RE = /([a-f0-9]{32})\.enc$/;
/** S3's smallest part; one part in flight, so an upload holds at most ~2 parts in memory. */
const PART_BYTES = 5 * 1024 * 1024;

function notFound(err: unknown) {
  const e = err as S3ServiceException & { Code?: string };
  return (
    e?.name === "NoSuchKey" ||
    e?.name === "NotFound" ||
    e?.Code === "NoSuchKey" ||
    e?.$metadata?.httpStatusCode === 404
  );
}

/**
 * Objects in an S3-compatible bucket (MinIO, Ceph RGW, AWS S3, Cloudflare R2; s3rver in tests),
 * through the plain S3 API only: PutObject / multipart upload (lib-storage, streamed in 5 MiB
 * parts), GetObject, HeadObject, DeleteObject, ListObjectsV2, ListMultipartUploads. Object names
 * are `<prefix><key>.enc`. A multipart upload is invisible until completed, and is aborted when
 * the body fails, so a refused or broken upload leaves no object; a crash leaves an
 * unfinished upload that sweepIncomplete() (or a bucket lifecycle rule) removes.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = "s3" as const;
  private readonly client: S3Client;

  constructor(
    private readonly cfg: S3Config,
    /** How long the store may leave a request without a byte either way (STORE_TIMEOUT_MS, decision 0075). */
    private readonly waitMs = config().storeTimeoutMs,
  ) {
    this.client = new S3Client({
      region: cfg.region,
      endpoint: cfg.endpoint,
      forcePathStyle: cfg.forcePathStyle,
      credentials: cfg.credentials,
      // A store that hangs never refuses (decision 0075): connecting, and each request's answer
      // (withDeadlines below), and each object's body while it is read (`unstalled`), have an end.
      requestHandler: { connectionTimeout: this.waitMs, throwOnRequestTimeout: true },
      retryStrategy: RETRIES,
      maxAttempts: MAX_ATTEMPTS,
      // Checksums only where the API requires them: stores other than AWS do not all know the newer headers.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
    withDeadlines(this.client, this.waitMs);
  }

  private name(key: string) {
    return `${this.cfg.prefix}${key}.enc`;
  }

  async put(key: string, body: AsyncIterable<Buffer>): Promise<void> {
    let bodyError: unknown;
    // Readable.from pulls from `body` only as the upload asks for bytes (backpressure).
    const source = Readable.from(
      (async function* () {
        try {
          yield* body;
        } catch (err) {
          bodyError = err;
          throw err;
        }
      })(),
    );
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.cfg.bucket,
        Key: this.name(key),
        Body: source,
        ContentType: "application/octet-stream",
      },
      partSize: PART_BYTES,
      queueSize: 1,
      leavePartsOnError: true,
    });
    try {
      await upload.done();
    } catch (err) {
      source.destroy();
      // The unfinished multipart upload is aborted without making the person wait for it: the store
      // may be the one that hangs (decision 0075). What cannot go now, sweepIncomplete removes.
      if (upload.uploadId)
        void this.client
          .send(
            new AbortMultipartUploadCommand({
              Bucket: this.cfg.bucket,
              Key: this.name(key),
              UploadId: upload.uploadId,
            }),
          )
          .catch(() => {});
      // The body's own error (too large, wrong type) is what the caller must see, not the SDK's wrapper.
      throw bodyError ?? err;
    }
    if (bodyError) {
      // Defensive: an upload that completed although its body failed must not stay.
      await this.delete(key).catch(() => {});
      throw bodyError;
    }
  }

  async get(key: string) {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.name(key) }),
      );
      if (!out.Body) return null;
      const body = out.Body as IncomingMessage;
      // From here the reader sets the pace (a phone on a slow network pauses the body for as long as
      // it needs): no idle limit on the socket (should the SDK set one) may cut it. A body that
      // stops while it is being read is bounded by `unstalled` instead.
      body.socket?.setTimeout(0);
      return {
        stream: Readable.from(unstalled(body, this.waitMs), { objectMode: false }),
        size: Number(out.ContentLength ?? 0),
      };
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string) {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: this.name(key) }));
  }

  async exists(key: string) {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.cfg.bucket, Key: this.name(key) }));
      return true;
    } catch (err) {
      if (notFound(err)) return false;
      throw err;
    }
  }

  async *list(prefix = "") {
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.cfg.bucket,
          Prefix: this.cfg.prefix + prefix || undefined,
          ContinuationToken: token,
          MaxKeys: 1000,
        }),
      );
      const page: { key: string; modifiedMs: number }[] = [];
      for (const o of out.Contents ?? []) {
        const rest = (o.Key ?? "").slice(this.cfg.prefix.length);
        const m = OBJECT_RE.exec(rest);
        if (m && rest === `${m[1]}.enc`) page.push({ key: m[1], modifiedMs: o.LastModified?.getTime() ?? 0 });
      }
      if (page.length) yield page;
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  async sweepIncomplete({ startedBefore }: { idleBefore: number; startedBefore: number }) {
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      let out;
      try {
        out = await this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.cfg.bucket,
            Prefix: this.cfg.prefix || undefined,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
      } catch (err) {
        // Some stores do not list unfinished uploads; a bucket lifecycle rule covers them there.
        if ((err as S3ServiceException)?.$metadata?.httpStatusCode === 501) return removed;
        throw err;
      }
      for (const u of out.Uploads ?? []) {
        if (u.Key && u.UploadId && (u.Initiated?.getTime() ?? 0) < startedBefore) {
          await this.client
            .send(
              new AbortMultipartUploadCommand({ Bucket: this.cfg.bucket, Key: u.Key, UploadId: u.UploadId }),
            )
            .catch(() => {});
          removed++;
        }
      }
      if (!out.IsTruncated) return removed;
      keyMarker = out.NextKeyMarker;
      uploadIdMarker = out.NextUploadIdMarker;
    }
  }

  async ping() {
    await this.client.send(new HeadBucketCommand({ Bucket: this.cfg.bucket }));
  }
}
