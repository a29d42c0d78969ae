/**
 * Decrypted voice notes held in memory (decision 0058). A player asks for a note in many small
 * Range requests; decrypting the whole note for each (the GCM tag is checked only at its end, so
 * no byte is served before all were read) held one copy per request. Here one process holds at
 * most VOICE_CACHE_BYTES of decrypted audio, least recently heard dropped first, and never serves
 * a copy older than VOICE_CACHE_TTL_MS (older ones are dropped when the next note is kept); requests for a note being decrypted wait for that one decryption. Who may
 * hear a note is decided before this cache is asked (openVoiceNote), every time.
 */

/** A cache of byte buffers bounded by their total size, least recently used dropped first. */
export class ByteLru {
  private entries = new Map<string, { bytes: Buffer; at: number }>();
  private loading = new Map<string, Promise<Buffer>>();
  private held = 0;

  constructor(
    readonly maxBytes: number,
    readonly ttlMs: number,
  ) {}

  /** Bytes held now (never more than maxBytes). */
  get bytes() {
    return this.held;
  }

  /** The buffer of `key`: cached, being read by another caller, or read now by `read`. */
  async get(key: string, read: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.bytes;
    }
    if (hit) this.drop(key);
    let pending = this.loading.get(key);
    if (!pending) {
      pending = read().finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
      pending.then(
        (bytes) => this.keep(key, bytes),
        () => {},
      );
    }
    return pending;
  }

  /** Forgets `key` (a deleted note). */
  drop(key: string) {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.held -= e.bytes.length;
  }

  private keep(key: string, bytes: Buffer) {
    // A note larger than the whole cache is shared by the requests that overlap, then let go.
    if (bytes.length > this.maxBytes) return;
    this.drop(key);
    const now = Date.now();
    for (const [k, e] of this.entries) if (now - e.at >= this.ttlMs) this.drop(k);
    for (const [k] of this.entries) {
      if (this.held + bytes.length <= this.maxBytes) break;
      this.drop(k);
    }
    this.entries.set(key, { bytes, at: Date.now() });
    this.held += bytes.length;
  }
}

/** At most this much decrypted audio per process (a 120-second WAV, the largest default note, is ~11.6 MB). */
export const VOICE_CACHE_BYTES = 48 * 1024 * 1024;
/** A decrypted note is served from memory at most this long after it was read (about one listening). */
export const VOICE_CACHE_TTL_MS = 5 * 60 * 1000;

export const voiceAudioCache = new ByteLru(VOICE_CACHE_BYTES, VOICE_CACHE_TTL_MS);
