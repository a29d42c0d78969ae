import { lazy, Suspense } from "react";
import type { ViewerState } from "~/components/imaging/viewer-state";
import type { Study } from "~/domain/records/index.server";

/**
 * The viewer's code is fetched only for a report with images (most reviews have none): a chunk of
 * its own, rendered in full on the server (the page waits for it), taken up by the browser when it
 * arrives (decision 0111).
 */
const StudyViewer = lazy(() =>
  import("~/components/imaging/StudyViewer").then((m) => ({ default: m.StudyViewer })),
);

/** Medical images beside the review form: the viewer (its state in the page's address). */
export function StudyPanel({
  reportId,
  study,
  state,
}: {
  reportId: string;
  study: Study;
  state: ViewerState;
}) {
  return (
    <Suspense fallback={null}>
      <StudyViewer reportId={reportId} study={study} state={state} />
    </Suspense>
  );
}
