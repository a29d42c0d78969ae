import { createHmac } from "node:crypto";
import { config } from "~/config.server";
import { dcmjs } from "./dcmjs.server";

/**
 * Who a study is filed under in the PACS (decision 0057). A patient writes PatientID,
 * PatientName and every UID of the files they upload, so none of them is trusted: before STOW-RS
 * each instance is rewritten with the profile's own identity and UIDs the server issued.
 *
 * - PatientID: a pseudonym stable per profile (`CB-` + 20 base32 characters of an HMAC of the
 *   profile's id under a key derived from ENCRYPTION_KEY), with IssuerOfPatientID "CAREBRIDGE";
 *   it reveals nothing about the internal id. PatientName: the name as registered.
 *   OtherPatientIDs (and its sequence), the accession number and its issuer are removed, so no
 *   hospital identifier a patient typed is carried into the archive.
 * - UIDs: every Study, Series and SOP Instance UID of an upload, wherever it appears (the
 *   instance's own, the file meta, and references inside sequences), becomes
 *   `2.25.<128 bits of an HMAC of (report id, original UID)>`: the same original maps to the same
 *   issued UID within one upload (its instances stay one study, references stay true), and never to
 *   one of another upload (no collision with another patient's study or instances in the PACS,
 *   nor a guessable one). The issued UIDs are what the rows and the API carry; the originals stay
 *   only in the encrypted original file.
 */

type Element = { vr: string; Value?: unknown[]; _rawValue?: unknown };
type Dataset = Record<string, Element>;

const STUDY_UID = "0020000D";
const SERIES_UID = "0020000E";
const SOP_INSTANCE_UID = "00080018";
const REFERENCED_SOP_INSTANCE_UID = "00081155";
const REFERENCED_SOP_INSTANCE_UID_IN_FILE = "00041511";
const MEDIA_STORAGE_SOP_INSTANCE_UID = "00020003";
const TRANSFER_SYNTAX_UID = "00020010";
const DEFLATED_EXPLICIT_LE = "1.2.840.10008.1.2.1.99";
const EXPLICIT_LE = "1.2.840.10008.1.2.1";
/** UIDs of the upload, wherever they appear: mapped to issued ones. */
const MAPPED_UIDS = new Set([
  STUDY_UID,
  SERIES_UID,
  SOP_INSTANCE_UID,
  REFERENCED_SOP_INSTANCE_UID,
  REFERENCED_SOP_INSTANCE_UID_IN_FILE,
]);
/** Identifiers a patient may have typed that name them elsewhere: removed. */
const REMOVED = [
  "00101000", // OtherPatientIDs
  "00101002", // OtherPatientIDsSequence
  "00101001", // OtherPatientNames
  "00100024", // IssuerOfPatientIDQualifiersSequence
  "00080051", // IssuerOfAccessionNumberSequence
];

function hmac(label: string, ...parts: string[]): Buffer {
  const key = createHmac("sha256", config().encryptionKey).update("carebridge-dicom-identity").digest();
  return createHmac("sha256", key)
    .update([label, ...parts].join("\0"))
    .digest();
}

/** The UID the server issues for an original UID of one upload (`2.25.` + a 128-bit number, PS3.5 B.2). */
export function issuedUid(reportId: string, original: string): string {
  const n = BigInt(`0x${hmac("uid", reportId, original).subarray(0, 16).toString("hex")}`);
  return `2.25.${n.toString(10)}`;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** The profile's pseudonymous PatientID: stable, and telling nothing about the profile's id. */
export function patientPseudonym(profileId: string): string {
  const h = hmac("patient", profileId);
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of h.subarray(0, 13)) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 20) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return `CB-${out}`;
}

/** A DICOM person name (Family^Given) from the registered name, without DICOM's delimiters. */
export function dicomName(firstName: string, lastName: string): string {
  const clean = (s: string) =>
    [...s]
      .map((c) => (c < " " || c === "\\" || c === "^" || c === "=" ? " " : c))
      .join("")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 60);
  return `${clean(lastName)}^${clean(firstName)}`;
}

export type PacsIdentity = {
  reportId: string;
  studyUid: string;
  seriesUid: string;
  sopInstanceUid: string;
  patientId: string;
  patientName: string;
};

function set(ds: Dataset, tag: string, vr: string, value: unknown[]) {
  ds[tag] = { vr, Value: value };
}

/** Maps the upload's UIDs inside sequences (references to its own instances, series, study). */
function mapNested(ds: Dataset, reportId: string) {
  for (const [tag, el] of Object.entries(ds)) {
    if (el.vr === "SQ" && Array.isArray(el.Value)) {
      for (const item of el.Value) if (item && typeof item === "object") mapNested(item as Dataset, reportId);
    } else if (MAPPED_UIDS.has(tag) && Array.isArray(el.Value)) {
      ds[tag] = { vr: el.vr, Value: el.Value.map((v) => (v ? issuedUid(reportId, String(v)) : v)) };
    }
  }
}

/**
 * One instance as the PACS receives it: the profile's identity and the issued UIDs written in,
 * everything else (pixel data included) as the file has it.
 */
export function rewriteForPacs(bytes: Buffer, who: PacsIdentity): Buffer {
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
  const file = dcmjs().data.DicomMessage.readFile(ab);
  const ds = file.dict as Dataset;
  const meta = file.meta as Dataset;
  mapNested(ds, who.reportId);
  for (const tag of REMOVED) delete ds[tag];
  // dcmjs reads every string as Unicode and writes UTF-8.
  set(ds, "00080005", "CS", ["ISO_IR 192"]);
  set(ds, "00100010", "PN", [{ Alphabetic: who.patientName }]);
  set(ds, "00100020", "LO", [who.patientId]);
  set(ds, "00100021", "LO", ["CAREBRIDGE"]);
  set(ds, "00080050", "SH", []);
  set(ds, STUDY_UID, "UI", [who.studyUid]);
  set(ds, SERIES_UID, "UI", [who.seriesUid]);
  set(ds, SOP_INSTANCE_UID, "UI", [who.sopInstanceUid]);
  set(meta, MEDIA_STORAGE_SOP_INSTANCE_UID, "UI", [who.sopInstanceUid]);
  // dcmjs writes the dataset as read (inflated): a deflated file is sent as explicit little endian.
  if (meta[TRANSFER_SYNTAX_UID]?.Value?.[0] === DEFLATED_EXPLICIT_LE)
    set(meta, TRANSFER_SYNTAX_UID, "UI", [EXPLICIT_LE]);
  return Buffer.from(file.write({ fragmentMultiframe: false }) as ArrayBuffer);
}
