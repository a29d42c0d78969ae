/**
 * Print pages (the slip, the opinion): on paper only the part marked `data-print` shows, on A4 with
 * plain margins; the header, sidebar and buttons stay on screen.
 */
export function PrintStyle() {
  return (
    <style>{`@media print {
  @page { size: A4; margin: 15mm; }
  body * { visibility: hidden; }
  [data-print], [data-print] * { visibility: visible; }
  [data-print] { position: absolute; left: 0; top: 0; width: 100%; border: 0 !important; box-shadow: none !important; }
  [data-no-print] { display: none !important; }
}`}</style>
  );
}
