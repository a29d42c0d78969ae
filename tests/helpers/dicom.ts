import dcmjs from "dcmjs";
import jpeg from "jpeg-js";
import { crc32, deflateRawSync } from "node:zlib";

/**
 * DICOM test files made in code with dcmjs (never downloaded): a CT-like series with a known
 * pixel ramp, one JPEG-baseline file and one RLE file, plus the ZIPs the upload tests need.
 */
const { DicomDict, DicomMetaDictionary } = dcmjs.data;

export const CT_IMAGE_STORAGE = "1.2.840.10008.5.1.4.1.1.2";
const SC_IMAGE_STORAGE = "1.2.840.10008.5.1.4.1.1.7";
export const EXPLICIT_LE = "1.2.840.10008.1.2.1";
export const RLE_LOSSLESS = "1.2.840.10008.1.2.5";
export const JPEG_BASELINE = "1.2.840.10008.1.2.4.50";

export type DicomOptions = {
  studyUid?: string;
  seriesUid?: string;
  seriesNumber?: number;
  instanceNumber?: number;
  rows?: number;
  columns?: number;
  frames?: number;
  modality?: string;
  bodyPart?: string;
  studyDate?: string;
  description?: string;
  /** Personal fields written into the file (name, ID, birth date, sex, institution …). */
  personal?: boolean;
  /** Every pixel 0 (the ramp otherwise): deflates to almost nothing. */
  zero?: boolean;
};

function write(
  dataset: Record<string, unknown>,
  transferSyntax: string,
  sopClass: string,
  sopInstance: string,
) {
  const meta = {
    FileMetaInformationVersion: new Uint8Array([0, 1]).buffer,
    MediaStorageSOPClassUID: sopClass,
    MediaStorageSOPInstanceUID: sopInstance,
    TransferSyntaxUID: transferSyntax,
    ImplementationClassUID: "1.2.826.0.1.3680043.10.1234.1",
    ImplementationVersionName: "CAREBRIDGE",
  };
  const dict = new DicomDict(DicomMetaDictionary.denaturalizeDataset(meta));
  dict.dict = DicomMetaDictionary.denaturalizeDataset(dataset);
  return Buffer.from(dict.write({ fragmentMultiframe: false }) as ArrayBuffer);
}

function base(o: DicomOptions, sopClass: string, sopInstance: string) {
  return {
    SOPClassUID: sopClass,
    SOPInstanceUID: sopInstance,
    StudyInstanceUID: o.studyUid ?? DicomMetaDictionary.uid(),
    SeriesInstanceUID: o.seriesUid ?? DicomMetaDictionary.uid(),
    Modality: o.modality ?? "CT",
    BodyPartExamined: o.bodyPart ?? "CHEST",
    StudyDate: o.studyDate ?? "20260315",
    StudyDescription: o.description ?? "CT CHEST",
    SeriesDescription: "AXIAL",
    SeriesNumber: String(o.seriesNumber ?? 1),
    InstanceNumber: String(o.instanceNumber ?? 1),
    StudyID: "1",
    AccessionNumber: "",
    ...(o.personal === false
      ? {}
      : {
          PatientName: "Test^Asha",
          PatientID: "MRN-12345",
          PatientBirthDate: "19800101",
          PatientSex: "F",
          InstitutionName: "Test Imaging Centre",
          ReferringPhysicianName: "Doctor^Ref",
        }),
  };
}

/**
 * A 16-bit MONOCHROME2 CT-like instance: stored value at (x, y) = (x + y * columns) * 4095 /
 * (pixels - 1) + (frame + instance − 1) × 40 (a ramp over 0…4095), rescaled by slope 1, intercept −1024 to
 * −1024…3071 HU, so each window preset maps it to visibly different grey levels.
 */
export function ctInstance(o: DicomOptions = {}): Buffer {
  const rows = o.rows ?? 64;
  const columns = o.columns ?? 64;
  const frames = o.frames ?? 1;
  const n = rows * columns;
  const pixels = new Uint16Array(n * frames);
  // Each frame, and each instance of a series, is shifted by 40 so that neighbours differ.
  const shift = ((o.instanceNumber ?? 1) - 1) * 40;
  for (let f = 0; f < frames && !o.zero; f++)
    for (let i = 0; i < n; i++)
      pixels[f * n + i] = Math.min(4095, Math.round((i * 4095) / (n - 1)) + f * 40 + shift);
  const sop = DicomMetaDictionary.uid();
  const dataset = {
    ...base(o, CT_IMAGE_STORAGE, sop),
    Rows: rows,
    Columns: columns,
    NumberOfFrames: String(frames),
    SamplesPerPixel: 1,
    PhotometricInterpretation: "MONOCHROME2",
    BitsAllocated: 16,
    BitsStored: 12,
    HighBit: 11,
    PixelRepresentation: 0,
    RescaleIntercept: "-1024",
    RescaleSlope: "1",
    WindowCenter: "40",
    WindowWidth: "400",
    PixelData: [pixels.buffer],
    _vrMap: { PixelData: "OW" },
  };
  return write(dataset, EXPLICIT_LE, CT_IMAGE_STORAGE, sop);
}

/** A CT series of `instances` files sharing one study and series. */
export function ctSeries(instances = 3, o: DicomOptions = {}): { studyUid: string; files: Buffer[] } {
  const studyUid = o.studyUid ?? DicomMetaDictionary.uid();
  const seriesUid = o.seriesUid ?? DicomMetaDictionary.uid();
  const files = Array.from({ length: instances }, (_, i) =>
    ctInstance({ ...o, studyUid, seriesUid, instanceNumber: i + 1 }),
  );
  return { studyUid, files };
}

/** PackBits of one byte plane (RLE segment encoding, PS3.5 G.3.1). */
function packBits(plane: Uint8Array): Buffer {
  const out: number[] = [];
  let i = 0;
  while (i < plane.length) {
    let run = 1;
    while (i + run < plane.length && run < 128 && plane[i + run] === plane[i]) run++;
    if (run > 1) {
      out.push(257 - run, plane[i]);
      i += run;
      continue;
    }
    const start = i;
    while (i < plane.length && i - start < 128 && !(i + 1 < plane.length && plane[i + 1] === plane[i])) i++;
    if (i === start) i++;
    out.push(i - start - 1, ...plane.subarray(start, i));
  }
  if (out.length % 2) out.push(0);
  return Buffer.from(out);
}

/** An RLE Lossless 16-bit MONOCHROME2 instance with the same ramp as ctInstance. */
export function rleInstance(o: DicomOptions = {}): Buffer {
  const rows = o.rows ?? 32;
  const columns = o.columns ?? 32;
  const n = rows * columns;
  const hi = new Uint8Array(n);
  const lo = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = Math.round((i * 4095) / (n - 1));
    hi[i] = v >> 8;
    lo[i] = v & 0xff;
  }
  const segs = [packBits(hi), packBits(lo)];
  const header = Buffer.alloc(64);
  header.writeUInt32LE(2, 0);
  header.writeUInt32LE(64, 4);
  header.writeUInt32LE(64 + segs[0].length, 8);
  const frame = Buffer.concat([header, ...segs]);
  const sop = DicomMetaDictionary.uid();
  const dataset = {
    ...base(o, CT_IMAGE_STORAGE, sop),
    Rows: rows,
    Columns: columns,
    SamplesPerPixel: 1,
    PhotometricInterpretation: "MONOCHROME2",
    BitsAllocated: 16,
    BitsStored: 12,
    HighBit: 11,
    PixelRepresentation: 0,
    RescaleIntercept: "-1024",
    RescaleSlope: "1",
    WindowCenter: "40",
    WindowWidth: "400",
    PixelData: [frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.length)],
    _vrMap: { PixelData: "OB" },
  };
  return write(dataset, RLE_LOSSLESS, CT_IMAGE_STORAGE, sop);
}

/** A JPEG-baseline (8-bit MONOCHROME2) secondary-capture instance encoded with jpeg-js. */
export function jpegInstance(o: DicomOptions = {}): Buffer {
  const rows = o.rows ?? 32;
  const columns = o.columns ?? 32;
  const rgba = Buffer.alloc(rows * columns * 4);
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < columns; x++) {
      const v = Math.round((x * 255) / (columns - 1));
      rgba.set([v, v, v, 255], (y * columns + x) * 4);
    }
  const encoded = jpeg.encode({ data: rgba, width: columns, height: rows }, 90).data;
  // jpeg-js writes three components; a grey image is equally valid as YBR_FULL_422 with equal chroma.
  const sop = DicomMetaDictionary.uid();
  const frame = Buffer.from(encoded);
  const padded = frame.length % 2 ? Buffer.concat([frame, Buffer.from([0])]) : frame;
  const dataset = {
    ...base({ modality: "OT", ...o }, SC_IMAGE_STORAGE, sop),
    Rows: rows,
    Columns: columns,
    SamplesPerPixel: 3,
    PhotometricInterpretation: "YBR_FULL_422",
    PlanarConfiguration: 0,
    BitsAllocated: 8,
    BitsStored: 8,
    HighBit: 7,
    PixelRepresentation: 0,
    PixelData: [padded.buffer.slice(padded.byteOffset, padded.byteOffset + padded.length)],
    _vrMap: { PixelData: "OB" },
  };
  return write(dataset, JPEG_BASELINE, SC_IMAGE_STORAGE, sop);
}

/** 132 bytes that look like a DICOM file's start but lack "DICM" (and a PDF-less text body). */
export function fakeDcm(): Buffer {
  return Buffer.concat([Buffer.alloc(128), Buffer.from("NOPE this is not a DICOM file\n".repeat(20))]);
}

export type ZipEntry = { name: string; data: Buffer; deflate?: boolean; symlink?: boolean };

/**
 * A ZIP written byte by byte (local headers, central directory, end record), so the tests can make
 * what no well-behaved archiver would: `../` names, absolute paths, symlink entries, bombs.
 */
export function makeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, "utf8");
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(e.deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix: the external attributes carry the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(e.deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(e.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.symlink ? 0o120777 : 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

export const JPEG_LS_LOSSLESS = "1.2.840.10008.1.2.4.80";

/**
 * A JPEG-LS (lossless) instance whose one fragment is a garbage codestream (a start-of-image marker,
 * then noise): the codec traps on it (decision 0056).
 */
export function jpegLsGarbageInstance(o: DicomOptions = {}): Buffer {
  const garbage = Buffer.alloc(4096, 0x41);
  garbage.set([0xff, 0xd8, 0xff, 0xf7], 0);
  const sop = DicomMetaDictionary.uid();
  const dataset = {
    ...base({ modality: "OT", ...o }, SC_IMAGE_STORAGE, sop),
    Rows: o.rows ?? 512,
    Columns: o.columns ?? 512,
    SamplesPerPixel: 1,
    PhotometricInterpretation: "MONOCHROME2",
    BitsAllocated: 16,
    BitsStored: 12,
    HighBit: 11,
    PixelRepresentation: 0,
    PixelData: [garbage.buffer.slice(garbage.byteOffset, garbage.byteOffset + garbage.length)],
    _vrMap: { PixelData: "OB" },
  };
  return write(dataset, JPEG_LS_LOSSLESS, SC_IMAGE_STORAGE, sop);
}

/**
 * `count` of the smallest image instances dcmjs writes (1 × 1 pixel, 8 bits, no personal fields),
 * all of one study and series, for tests that need thousands of instances (a CD of a long scan):
 * one file is written, and the others are that file with its SOP Instance UID's last digits changed.
 */
export function tinyInstances(count: number): Buffer[] {
  const prefix = `${DicomMetaDictionary.uid().slice(0, 50)}.`;
  const uidAt = (i: number) => Buffer.from(`${prefix}${100000 + i}`, "latin1");
  const template = write(
    {
      SOPClassUID: SC_IMAGE_STORAGE,
      SOPInstanceUID: uidAt(0).toString("latin1"),
      StudyInstanceUID: DicomMetaDictionary.uid(),
      SeriesInstanceUID: DicomMetaDictionary.uid(),
      Modality: "OT",
      Rows: 1,
      Columns: 1,
      SamplesPerPixel: 1,
      PhotometricInterpretation: "MONOCHROME2",
      BitsAllocated: 8,
      BitsStored: 8,
      HighBit: 7,
      PixelRepresentation: 0,
      PixelData: [new Uint8Array([128, 0]).buffer],
      _vrMap: { PixelData: "OB" },
    },
    EXPLICIT_LE,
    SC_IMAGE_STORAGE,
    uidAt(0).toString("latin1"),
  );
  const first = uidAt(0);
  const at: number[] = [];
  for (let p = template.indexOf(first); p >= 0; p = template.indexOf(first, p + 1)) at.push(p);
  return Array.from({ length: count }, (_, i) => {
    const file = Buffer.from(template);
    for (const p of at) uidAt(i).copy(file, p);
    return file;
  });
}
