import { createHash, randomBytes } from "node:crypto";

/** Opaque 24-hex-character ids (the shape API clients of the original knew as `_id`). */
export function newId(): string {
  return randomBytes(12).toString("hex");
}

/** A random URL-safe secret token. */
export function newToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
