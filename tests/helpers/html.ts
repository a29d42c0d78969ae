/**
 * What a page shows and sends, without its string table: every page carries, in a JSON data block
 * at the end of <body>, the strings its screens may need in the browser (decision 0036), whether
 * or not they are shown now. Tests that check a message or a word is NOT on the page read this.
 */
export function withoutPageStrings(html: string): string {
  return html.replace(/<script type="application\/json" id="cb-strings"[^>]*>[^<]*<\/script>/, "");
}
