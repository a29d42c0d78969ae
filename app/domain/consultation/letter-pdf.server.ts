// The opinion letter as a PDF (decision 0012): a pure function of its data, no I/O besides
// reading the font files. Decision 0012 explains the choices; in short:
// - pdfkit draws, its fontkit shapes (OpenType, Indic shaper: conjuncts, reordered matras);
// - Noto Sans for Latin, Noto Sans Devanagari/Bengali/Tamil for those scripts. The script fonts
//   have no Latin digits or punctuation, so every line is split into runs by script and each run
//   is drawn with its own font at an explicit x, all on one alphabetic baseline;
// - we lay out lines ourselves (words → lines measured with shaped widths) and wrap each drawn
//   line in a marked-content Span whose ActualText is the line's logical text, so that copy and
//   paste, search and pdftotext give the text as typed, not the glyphs' visual order.
import {
  A4,
  BOTTOM,
  Letter,
  MARGIN,
  S,
  TEAL,
  TEXT_W,
  WARN,
  baseOf,
  leading,
  present,
  type Row,
} from "./letter-layout.server";
import type { LetterLocale } from "./letter-fonts.server";

// The test measures shaped widths through this module.
export { textWidth } from "./letter-layout.server";

export type LetterText = {
  /** Every label already translated by the caller. */
  title: string;
  patientLabel: string;
  reportLabel: string;
  submittedLabel: string;
  reviewedLabel: string;
  summaryLabel: string;
  findingsLabel: string;
  recommendationsLabel: string;
  /** "Next steps" (decision 0114). */
  stepsLabel?: string;
  /** A prominent warning sentence when the expert flagged it, else null. */
  seeDoctorSoon: string | null;
  followUpsLabel: string;
  questionLabel: string;
  answerLabel: string;
  notAnsweredYet: string;
  /** "Reviewed by" */
  signedByLabel: string;
  /** "Reg. No." */
  registrationLabel: string;
  verificationLabel: string;
  verifyHint: string;
  disclaimer: string;
};

export type LetterData = {
  locale: LetterLocale;
  productName: string;
  patientName: string;
  /** Already translated. */
  reportType: string;
  /** Already formatted dates. */
  submittedOn: string;
  reviewedOn: string;
  summary: string;
  findings: string | null;
  recommendations: string | null;
  /**
   * The opinion's next steps (decision 0114), already in the letter's language: what to do, then
   * when (and a facility's reason, as the expert wrote it).
   */
  steps?: { title: string; detail: string }[];
  followUps: { question: string; answer: string | null; askedOn: string; answeredOn: string | null }[];
  /** `specialties` already translated and joined. */
  expert: { name: string; registrationNumber: string; registrationCouncil: string; specialties: string };
  verificationCode: string;
  text: LetterText;
  /**
   * A case's second opinions (decision 0038), each after the first opinion's signature: a heading
   * naming the specialty, how it stands to the first opinion and why, its opinion and its signer.
   * All already translated and formatted.
   */
  secondOpinions?: {
    heading: string;
    agreementLabel: string;
    agreement: string;
    summary: string;
    findings: string | null;
    recommendations: string | null;
    expert: LetterData["expert"];
    reviewedOn: string;
  }[];
};

/** Renders the opinion letter. Pure: the same data gives the same pages (only the PDF's dates differ). */
export async function renderLetterPdf(data: LetterData): Promise<Buffer> {
  const t = data.text;
  const L = new Letter(data.locale, `${t.title} · ${data.productName}`, data.productName);
  const doc = L.doc;

  const done = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });

  // Header band: product name and title, white on the accent colour.
  {
    const pad = 14;
    const rows = [...L.rows(data.productName, S.product, pad), ...L.rows(t.title, S.title, pad)];
    L.block(rows, {
      pad,
      box: (top, h) => doc.save().rect(MARGIN, top, TEXT_W, h).fill(TEAL).restore(),
    });
    L.y += 16;
  }

  // Patient, report type, dates: labels in a column, values beside them.
  {
    const info: [string, string][] = [
      [t.patientLabel, data.patientName],
      [t.reportLabel, data.reportType],
      [t.submittedLabel, data.submittedOn],
      [t.reviewedLabel, data.reviewedOn],
    ];
    const labelW = Math.min(
      Math.max(...info.map(([label]) => L.width(L.units(label), S.label))) + 14,
      TEXT_W * 0.38,
    );
    const rows: Row[] = [];
    for (const [label, value] of info) {
      rows.push(...L.columns(L.rows(label, S.label, 0, labelW - 10), L.rows(value, S.value, labelW)));
    }
    L.block(rows, { together: true });
    L.y += 10;
    L.rule(TEAL);
    L.y += 14;
  }

  // The warning: framed, tinted, thick left bar and a drawn warning sign, bold dark red text.
  if (present(t.seeDoctorSoon)) {
    const pad = 10;
    const icon = 16;
    const textX = 6 + pad + icon + 10;
    L.block(L.rows(t.seeDoctorSoon, S.warning, textX, TEXT_W - textX - pad), {
      pad,
      together: true,
      box: (top, h) => {
        doc.save();
        doc.rect(MARGIN, top, TEXT_W, h).fill(WARN.fill);
        doc
          .rect(MARGIN + 0.75, top + 0.75, TEXT_W - 1.5, h - 1.5)
          .lineWidth(1.5)
          .stroke(WARN.border);
        doc.rect(MARGIN, top, 6, h).fill(WARN.border);
        // Warning sign: a triangle with an exclamation mark (shapes, not text).
        const ix = MARGIN + 6 + pad;
        const iy = top + pad + 2;
        doc
          .polygon([ix + icon / 2, iy], [ix + icon, iy + icon * 0.9], [ix, iy + icon * 0.9])
          .fill(WARN.border);
        doc.rect(ix + icon / 2 - 1, iy + icon * 0.3, 2, icon * 0.33).fill("#ffffff");
        doc.circle(ix + icon / 2, iy + icon * 0.76, 1.1).fill("#ffffff");
        doc.restore();
      },
    });
    L.y += 16;
  }

  const heading = (label: string, keepWithNext: number) => {
    L.gap(8);
    L.block(L.rows(label, S.heading), { together: true, keepWithNext });
    L.y += 3;
  };
  const section = (label: string, body: string | null) => {
    if (!present(body)) return;
    const rows = L.rows(body, S.body);
    heading(
      label,
      rows.slice(0, 2).reduce((s, r) => s + r.h, 0),
    );
    L.block(rows);
    L.y += 8;
  };
  section(t.summaryLabel, data.summary);
  section(t.findingsLabel, data.findings);
  section(t.recommendationsLabel, data.recommendations);

  // The next steps (decision 0114): numbered, each with its due date on the line below.
  if (data.steps?.length && t.stepsLabel) {
    const items = data.steps.map((st, i) => [
      ...L.rows(`${i + 1}. ${st.title}`, S.subhead),
      ...L.rows(st.detail, S.body, 14),
    ]);
    heading(
      t.stepsLabel,
      items[0].reduce((h, r) => h + r.h, 0),
    );
    for (const rows of items) {
      L.block(rows, { together: true });
      L.y += 4;
    }
    L.y += 4;
  }

  if (data.followUps.length > 0) {
    const items = data.followUps.map((f) => {
      const q = L.rows([t.questionLabel, f.askedOn].filter(present).join(" · "), S.subhead);
      const a = L.rows([t.answerLabel, f.answeredOn ?? ""].filter(present).join(" · "), S.subhead);
      return {
        q,
        question: L.rows(f.question, S.body, 12),
        a,
        answer: L.rows(f.answer ?? t.notAnsweredYet, S.body, 12),
      };
    });
    const first = items[0];
    heading(t.followUpsLabel, first.q.length > 0 ? first.q[0].h + (first.question[0]?.h ?? 0) : 0);
    for (const it of items) {
      const head = [...it.q, ...it.question];
      L.block(head, { together: true, keepWithNext: (it.a[0]?.h ?? 0) + (it.answer[0]?.h ?? 0) });
      L.y += 3;
      L.block([...it.a, ...it.answer], { together: true });
      L.y += 10;
    }
  }

  // Signature: who reviewed, registration, specialties, date; kept on one page, teal bar on the left.
  const signature = (expert: LetterData["expert"], reviewedOn: string) => {
    L.gap(10);
    const x = 12;
    const reg = [t.registrationLabel, expert.registrationNumber].filter(present).join(" ");
    const rows = [
      ...L.rows(t.signedByLabel, S.label, x),
      ...L.rows(expert.name, S.name, x),
      ...L.rows([reg, expert.registrationCouncil].filter(present).join(" · "), S.body, x),
      ...(present(expert.specialties) ? L.rows(expert.specialties, S.body, x) : []),
      ...L.rows(`${t.reviewedLabel}: ${reviewedOn}`, S.body, x),
    ];
    L.block(rows, {
      pad: 4,
      together: true,
      box: (top, h) => doc.save().rect(MARGIN, top, 3, h).fill(TEAL).restore(),
    });
    L.y += 16;
  };
  signature(data.expert, data.reviewedOn);

  // Each second opinion: a ruled-off part of its own, then its signer.
  for (const second of data.secondOpinions ?? []) {
    L.rule(TEAL);
    L.y += 6;
    L.block(L.rows(second.heading, S.heading), { together: true, keepWithNext: 40 });
    L.y += 3;
    section(second.agreementLabel, second.agreement);
    section(t.summaryLabel, second.summary);
    section(t.findingsLabel, second.findings);
    section(t.recommendationsLabel, second.recommendations);
    signature(second.expert, second.reviewedOn);
  }

  // Verification code and where to check it, framed in the accent colour.
  {
    const pad = 10;
    const rows = [
      ...L.rows(t.verificationLabel, S.subhead, pad, TEXT_W - 2 * pad),
      ...L.rows(data.verificationCode, S.code, pad, TEXT_W - 2 * pad),
      ...L.rows(t.verifyHint, S.small, pad, TEXT_W - 2 * pad),
    ];
    L.block(rows, {
      pad,
      together: true,
      box: (top, h) => doc.save().rect(MARGIN, top, TEXT_W, h).lineWidth(1).stroke(TEAL).restore(),
    });
    L.y += 16;
  }

  // Disclaimer, small, after a thin rule.
  {
    const rows = L.rows(t.disclaimer, S.disclaimer);
    L.keep(
      8 +
        Math.min(
          rows.reduce((s, r) => s + r.h, 0),
          BOTTOM - MARGIN - 8,
        ),
    );
    L.rule("#9ca3af", 0.5);
    L.y += 6;
    L.block(rows);
  }

  // Footer on every page: product name and verification code, page n / total.
  const range = doc.bufferedPageRange();
  const total = range.count;
  for (let i = range.start; i < range.start + total; i++) {
    doc.switchToPage(i);
    L.y = A4.h - MARGIN + 4;
    L.rule("#9ca3af", 0.5);
    const left = L.rows(`${data.productName} · ${data.verificationCode}`, S.footer, 0, TEXT_W * 0.7)[0];
    const pageNo = L.units(`${i - range.start + 1} / ${total}`);
    const right: Row = {
      h: leading(S.footer, false),
      base: baseOf(S.footer, leading(S.footer, false)),
      cells: [{ x: TEXT_W - L.width(pageNo, S.footer), units: pageNo, style: S.footer }],
    };
    const row = L.columns(left ? [left] : [], [right])[0];
    L.drawRow(row, L.y + 3); // inside the bottom margin: no page logic
  }

  doc.end();
  return done;
}
