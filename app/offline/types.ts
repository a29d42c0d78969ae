/**
 * The offline outbox's shapes (decision 0063), shared by the pages and the service worker. An item
 * is one action a person took without a connection; its `id` is also the `Idempotency-Key` every
 * attempt sends, so the server creates its record once however often it is sent.
 */

export type ItemKind = "register" | "upload" | "voice" | "follow-up";
export type ItemState = "waiting" | "sending" | "sent" | "needs-you";

/** A file an item carries (a report photo, a thumbprint photo, a recording). */
export type ItemFile = { name: string; type: string; bytes: ArrayBuffer };

/** What the item sends: form fields and at most one file. Encrypted at rest with the account's key. */
export type ItemPayload = {
  /** What the person sees in the outbox ("Register Sita Devi"). */
  label: string;
  fields: Record<string, string>;
  file?: ItemFile;
  /** For follow-ups and voice notes on a report that already exists. */
  reportId?: string;
};

/** The server's answer when an item was created (`data` of the API's 201). */
export type ItemResult = { id: string; shortId?: string; patientId?: string };

/** Why an item needs the person: the server's message (in their language) and what to do. */
export type ItemReason = {
  status: number;
  message: string;
  errors?: Record<string, string[]>;
  /** Kept on the server for the worker's centre (a suspended or moved worker, decision 0065). */
  held?: boolean;
  /** Not sent because the item it comes after needs the person (that item's reason). */
  waitsFor?: string;
};

/** An item as kept in the browser's database: the payload sealed, the state in the clear. */
export type StoredItem = {
  id: string;
  accountId: string;
  kind: ItemKind;
  createdAt: string;
  /** A health worker's centre when the item was recorded (sent as X-CareBridge-Centre). */
  centreId?: string;
  /** The item that must be sent first (a registration before that patient's uploads). */
  after?: string;
  state: ItemState;
  progress?: { sent: number; total: number };
  reason?: ItemReason;
  result?: ItemResult;
  /** When the server answered with the created record. */
  sentAt?: string;
  /** A tus upload's address once created, so a cut connection resumes there. */
  uploadUrl?: string;
  /** AES-GCM: 12-byte iv + ciphertext of the JSON payload (file bytes base64). */
  sealed: { iv: ArrayBuffer; data: ArrayBuffer };
};

/** Who is signed in on this phone, as the last online page said (nothing else identifies them offline). */
export type OfflineSession = {
  accountId: string;
  role: "Patient" | "HealthWorker";
  locale: string;
  firstName: string;
  /** A health worker's centre when last online (items are recorded for it). */
  centre?: { _id: string; name: string };
};
