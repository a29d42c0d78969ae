import { describe, expect, it } from "vitest";
import { doubtsDigits, linesFromTsv, surerLines, unsureWords } from "~/domain/records/lab-lines.server";

/**
 * A number Tesseract was unsure of is doubted (decision 0089): by its word confidence, and by the
 * rival readings its LSTM gave a digit (hOCR with lstm_choice_mode=2). The words below are what
 * Tesseract 5.3 gave for "TLC : 9,200 /cu.mm [4,000 - 11,000]" on a phone photo: "[4,900" at word
 * confidence 70 (not under WEAK_CONF), its "9" at 98 with "0" the rival at 54.
 */
const head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext";
const word = (n: number, left: number, width: number, conf: number, text: string) =>
  `5\t1\t1\t1\t1\t${n}\t${left}\t751\t${width}\t33\t${conf}\t${text}`;
const tsv = [
  head,
  "1\t1\t0\t0\t0\t0\t0\t0\t2333\t3300\t-1\t",
  word(1, 158, 57, 81.4, "TLC"),
  word(2, 981, 97, 87.2, "9,200"),
  word(3, 1632, 113, 70.3, "[4,900"),
].join("\n");

const chars = (list: [string, [string, number][]][]) =>
  list
    .map(
      ([c, rivals]) =>
        `<span class='ocrx_cinfo' title='x_bboxes 0 0 1 1; x_conf 97.9'>${c}</span>` +
        `<span class='ocrx_cinfo' id='lstm_choices'>${rivals.map(([r, x]) => `<span class='ocrx_cinfo' id='choice' title='x_confs ${x}'>${r}</span>`).join("")}</span>`,
    )
    .join("\n");
const hocrWord = (box: string, inner: string) =>
  `<span class='ocrx_word' id='word_1_1' title='bbox ${box}; x_wconf 70'>${inner}</span>`;

describe("a digit Tesseract was unsure of makes its word doubted", () => {
  const sure = chars([
    [
      "9",
      [
        ["9", 95.1],
        ["8", 0],
      ],
    ],
    [
      ",",
      [
        [",", 94.2],
        [".", 0],
      ],
    ],
    ["2", [["2", 96]]],
    [
      "0",
      [
        ["0", 97],
        ["O", 41],
      ],
    ], // a letter rival says nothing of the number
    ["0", [["0", 97]]],
  ]);
  const rivalled = chars([
    [
      "[",
      [
        ["[", 86],
        ["{", 53.8],
      ],
    ],
    [
      "4",
      [
        ["4", 95.2],
        ["2", 0],
      ],
    ],
    [",", [[",", 94.2]]],
    [
      "9",
      [
        ["9", 80.2],
        ["0", 54],
      ],
    ],
    ["0", [["0", 94]]],
    ["0", [["0", 94]]],
  ]);
  const hocr = [hocrWord("981 751 1078 784", sure), hocrWord("1632 751 1745 784", rivalled)].join("\n");

  it("finds the word whose digit had another digit as a rival, by its box", () => {
    expect([...unsureWords(hocr)]).toEqual(["1632 751 1745 784"]);
    // A rival under RIVAL_CONF is no doubt.
    expect(unsureWords(hocr.replace("x_confs 54", "x_confs 12")).size).toBe(0);
  });

  it("marks that word weak on its line, which a word confidence of 70 alone does not", () => {
    expect(linesFromTsv(tsv, 0, true)[0]!.weak).toEqual([]);
    const [line] = linesFromTsv(tsv, 0, true, unsureWords(hocr));
    expect(line!.text).toContain("[4,900");
    expect(line!.weak).toEqual(["[4,900"]);
  });
});

describe("a page read twice keeps, line by line, the reading Tesseract was surer of (decision 0089)", () => {
  // Two readings of one line "Bicarbonate 21 mEq/L 22-29" (pixel sizes differ by 10 %; the boxes
  // are page fractions, so the lines meet), and a line both read alike.
  const plain = (l: { text: string }) => l.text.replace(/\s+/g, " ");
  const page = (size: [number, number], lines: [number, number, string, number][]) =>
    [
      head,
      `1\t1\t0\t0\t0\t0\t0\t0\t${size[0]}\t${size[1]}\t-1\t`,
      ...lines.flatMap(([line, top, text, conf]) =>
        text
          .split(" ")
          .map((t, i) => `5\t1\t1\t1\t${line}\t${i + 1}\t${100 + i * 300}\t${top}\t200\t40\t${conf}\t${t}`),
      ),
    ].join("\n");
  const reading = (size: [number, number], lines: [number, number, string, number][]) =>
    linesFromTsv(page(size, lines), 0, true);
  const first = reading(
    [2480, 3508],
    [
      [1, 700, "Bicarbonate 215 mEq/L 22-29", 55],
      [2, 900, "Sodium 139 mEq/L 136-145", 96],
    ],
  );
  const second = reading(
    [2728, 3859],
    [
      [1, 770, "Bicarbonate 21 mEq/L 22-29", 91],
      [2, 990, "Sodium 130 mEq/L 136-145", 80],
    ],
  );

  it("takes the second reading's line where its digits are surer, and keeps the first's elsewhere", () => {
    expect(doubtsDigits(first)).toBe(true);
    expect(surerLines(first, second).map(plain)).toEqual([
      "Bicarbonate 21 mEq/L 22-29",
      "Sodium 139 mEq/L 136-145",
    ]);
  });

  it("keeps the first reading when the second is not surer by the margin, or has no line there", () => {
    expect(surerLines(first, second, 40).map(plain)).toEqual([
      "Bicarbonate 215 mEq/L 22-29",
      "Sodium 139 mEq/L 136-145",
    ]);
    expect(surerLines(first, second.slice(1)).map(plain)).toEqual([
      "Bicarbonate 215 mEq/L 22-29",
      "Sodium 139 mEq/L 136-145",
    ]);
  });

  it("a page with no doubted digit is not read again", () => {
    expect(doubtsDigits(second.slice(0, 1))).toBe(false);
  });
});
