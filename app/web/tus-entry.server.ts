/**
 * The resumable-upload routes' way in to tus.server.ts: the tus protocol (@tus/server and what it
 * brings) is loaded by the first resumable upload, not when the server starts (decision 0111).
 */
export const handleTus: typeof import("./tus.server").handleTus = async (...args) =>
  (await import("./tus.server")).handleTus(...args);
