// A facility step's referral letter (decision 0114), drawn with the opinion letter's machinery
// (decision 0012: letter-layout and letter-fonts; pdfkit is still loaded when the first letter is
// drawn). A pure function of its data: every label comes translated from the caller.
import {
  A4,
  MARGIN,
  S,
  TEAL,
  TEXT_W,
  Letter,
  baseOf,
  leading,
  present,
  type Row,
} from "./letter-layout.server";
import type { LetterLocale } from "./letter-fonts.server";

export type ReferralPdfData = {
  locale: LetterLocale;
  productName: string;
  title: string;
  /** Label and value: patient, facility, urgency, due date, opinion date. */
  rows: [string, string][];
  /** Heading and text: the reason, the opinion's summary. */
  sections: [string, string][];
  signedBy: string;
  referralLabel: string;
  referralCode: string;
  referralHint: string;
  verificationLabel: string;
  verificationCode: string;
  verifyHint: string;
};

export async function renderReferralPdf(data: ReferralPdfData): Promise<Buffer> {
  const L = new Letter(data.locale, `${data.title} · ${data.productName}`, data.productName);
  const doc = L.doc;
  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });

  {
    const pad = 14;
    const rows = [...L.rows(data.productName, S.product, pad), ...L.rows(data.title, S.title, pad)];
    L.block(rows, { pad, box: (top, h) => doc.save().rect(MARGIN, top, TEXT_W, h).fill(TEAL).restore() });
    L.y += 16;
  }
  {
    const labelW = Math.min(
      Math.max(...data.rows.map(([label]) => L.width(L.units(label), S.label))) + 14,
      TEXT_W * 0.38,
    );
    const rows: Row[] = [];
    for (const [label, value] of data.rows.filter(([, v]) => present(v)))
      rows.push(...L.columns(L.rows(label, S.label, 0, labelW - 10), L.rows(value, S.value, labelW)));
    L.block(rows, { together: true });
    L.y += 10;
    L.rule(TEAL);
    L.y += 14;
  }
  for (const [label, body] of data.sections) {
    if (!present(body)) continue;
    L.gap(8);
    const rows = L.rows(body, S.body);
    L.block(L.rows(label, S.heading), { together: true, keepWithNext: rows[0]?.h ?? 0 });
    L.y += 3;
    L.block(rows);
    L.y += 8;
  }
  if (present(data.signedBy)) {
    L.gap(6);
    L.block(L.rows(data.signedBy, S.subhead, 12), {
      pad: 4,
      together: true,
      box: (top, h) => doc.save().rect(MARGIN, top, 3, h).fill(TEAL).restore(),
    });
    L.y += 14;
  }
  const framed = (label: string, code: string, hint: string) => {
    if (!present(code)) return;
    const pad = 10;
    const rows = [
      ...L.rows(label, S.subhead, pad, TEXT_W - 2 * pad),
      ...L.rows(code, S.code, pad, TEXT_W - 2 * pad),
      ...L.rows(hint, S.small, pad, TEXT_W - 2 * pad),
    ];
    L.block(rows, {
      pad,
      together: true,
      box: (top, h) => doc.save().rect(MARGIN, top, TEXT_W, h).lineWidth(1).stroke(TEAL).restore(),
    });
    L.y += 14;
  };
  framed(data.referralLabel, data.referralCode, data.referralHint);
  framed(data.verificationLabel, data.verificationCode, data.verifyHint);

  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    L.y = A4.h - MARGIN + 4;
    L.rule("#9ca3af", 0.5);
    const left = L.rows(`${data.productName} · ${data.referralCode}`, S.footer, 0, TEXT_W * 0.7)[0];
    const pageNo = L.units(`${i - range.start + 1} / ${range.count}`);
    const right: Row = {
      h: leading(S.footer, false),
      base: baseOf(S.footer, leading(S.footer, false)),
      cells: [{ x: TEXT_W - L.width(pageNo, S.footer), units: pageNo, style: S.footer }],
    };
    L.drawRow(L.columns(left ? [left] : [], [right])[0], L.y + 3);
  }
  doc.end();
  return done;
}
