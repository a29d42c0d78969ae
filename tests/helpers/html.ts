/**
 * What a page shows and sends, without its string table: every page carries, in a JSON data block
 * at the end of <body>, the strings its screens may need in the browser (decision 0036), whether
 * or not they are shown now. Tests that check a message or a word is NOT on the page read this.
 */
export function withoutPageStrings(html: string): string {
  return html.replace(/<script type="application\/json" id="cb-strings"[^>]*>[^<]*<\/script>/, "");
}

/**
 * The JavaScript modules a page loads on a first visit: the inline script that adds them after
 * the first paint (decision 0045) names each one — the entry, its imports and the routes' modules —
 * in its list of modulepreload links. Empty when the page has no such script.
 */
export function pageModules(html: string): string[] {
  const list = /,(\[[^\]]*\]),document\.currentScript\.nonce\)/.exec(html)?.[1];
  return list ? (JSON.parse(list) as string[]) : [];
}
