const END = Buffer.from("</body></html>");

/**
 * Single fetch streams the loader data as inline `<script>`s that React writes after the document
 * (RemixServer renders them beside the router, so after `</html>`). Browsers put them into the
 * body anyway, but the HTML spec calls a tag there a parse error and the W3C validator stops at it.
 * This moves everything that follows `</body></html>` in front of it, so the document ends with
 * `</html>` and the browser builds exactly the same tree; `extra` (markup that depends on the whole
 * render, the page's strings) goes last inside <body>. The page is whole by then: the render is
 * collected before it is answered (decision 0035).
 */
export function tailInsideBody(page: Buffer, extra = ""): Buffer {
  const at = page.indexOf(END);
  if (at === -1) return extra ? Buffer.concat([page, Buffer.from(extra)]) : page;
  return Buffer.concat([page.subarray(0, at), page.subarray(at + END.length), Buffer.from(extra), END]);
}
