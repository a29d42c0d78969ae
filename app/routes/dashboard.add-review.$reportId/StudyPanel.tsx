import { StudyViewer } from "~/components/imaging/StudyViewer";
import type { ViewerState } from "~/components/imaging/viewer-state";
import type { Study } from "~/domain/records/index.server";

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
  return <StudyViewer reportId={reportId} study={study} state={state} />;
}
