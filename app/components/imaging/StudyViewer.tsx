import { Form, Link, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "~/i18n/useTranslation";
import type { Study } from "~/domain/records/index.server";
import { FIELD_LABELS, PACS_LABELS, PRESET_LABELS } from "./labels";
import { frameAt, frameUrl, VIEWER_PRESETS, withState, ZOOMS, type ViewerState } from "./viewer-state";

/**
 * A light viewer of a study's server-rendered frames (decision 0039): series list, image slider,
 * window presets, zoom and pan. Every control is a link or a GET form (the frame is rendered on
 * the server); with JavaScript the slider swaps the image without a reload.
 */
export function StudyViewer({
  reportId,
  study,
  state,
}: {
  reportId: string;
  study: Study;
  state: ViewerState;
}) {
  const { t } = useTranslation();
  const { search } = useLocation();
  const series = study.series[state.s];
  const total = series?.frames ?? 0;
  const [n, setN] = useState(state.n);
  useEffect(() => setN(state.n), [state.n, state.s]);
  const at = series ? frameAt(series, n) : null;
  const link = (change: Partial<ViewerState>) => withState(search, state, change);
  const step = 25;
  const shift = (v: number, d: number) => Math.min(100, Math.max(0, v + d));
  // The zoomed image is z times the frame's box; x/y pick which part of it shows.
  const offset = (v: number) => ((v / 100) * (1 - 1 / state.z) * 100).toFixed(2);
  const presetName = t(PRESET_LABELS[state.p]);

  return (
    <section className="card min-w-0 space-y-3 p-3" aria-labelledby="study-title" data-testid="study-viewer">
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="study-title" className="text-lg font-semibold text-slate-900">
          {t("imaging.title")}
        </h2>
        {study.viewerUrl && (
          <a
            href={study.viewerUrl}
            target="_blank"
            rel="noopener noreferrer"
            className="link text-sm"
            data-testid="ohif-link"
          >
            {t("imaging.openViewer")}
            <span className="sr-only"> {t("reports.opensInNewTab")}</span>
          </a>
        )}
      </header>

      {study.series.length > 1 && (
        <nav aria-label={t("imaging.series")}>
          <ul className="flex flex-wrap gap-2 text-sm">
            {study.series.map((s, i) => (
              <li key={s.seriesUid}>
                <Link
                  to={link({ s: i, n: 1 })}
                  preventScrollReset
                  aria-current={i === state.s ? "true" : undefined}
                  className={i === state.s ? "btn-primary px-3" : "btn-secondary px-3"}
                >
                  {t("imaging.seriesItem", {
                    n: s.seriesNumber ?? i + 1,
                    description: s.description ?? "",
                    frames: s.frames,
                  })}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}

      <div role="group" aria-label={t("imaging.window")} className="flex flex-wrap gap-2 text-sm">
        {VIEWER_PRESETS.map((p) => (
          <Link
            key={p}
            to={link({ p })}
            preventScrollReset
            aria-current={p === state.p ? "true" : undefined}
            className={p === state.p ? "btn-primary px-3" : "btn-secondary px-3"}
            data-testid={`preset-${p}`}
          >
            {t(PRESET_LABELS[p])}
          </Link>
        ))}
      </div>

      <div
        className="relative mx-auto w-full max-w-xl overflow-hidden rounded-md bg-black"
        style={{
          aspectRatio: series?.instances[0]
            ? `${series.instances[0].columns} / ${series.instances[0].rows}`
            : "1",
        }}
      >
        {at && (
          <img
            src={frameUrl(reportId, at, state.p)}
            alt={t("imaging.frameAlt", { n, total, preset: presetName })}
            data-testid="study-frame"
            className="block h-auto max-w-none"
            style={{
              width: `${state.z * 100}%`,
              transform: `translate(-${offset(state.x)}%, -${offset(state.y)}%)`,
              imageRendering: state.z > 1 ? "pixelated" : undefined,
            }}
          />
        )}
      </div>

      <Form method="get" preventScrollReset className="flex flex-wrap items-center gap-2">
        {(["s", "p", "z", "x", "y"] as const).map((k) => (
          <input key={k} type="hidden" name={k} value={String(state[k])} />
        ))}
        <label htmlFor="study-frame-n" className="text-sm font-semibold">
          {t("imaging.frameLabel")}
        </label>
        <input
          id="study-frame-n"
          name="n"
          type="range"
          min={1}
          max={Math.max(1, total)}
          value={n}
          onChange={(e) => setN(Number(e.currentTarget.value))}
          className="min-w-0 flex-1"
          aria-valuetext={t("imaging.frame", { n, total })}
          data-testid="frame-slider"
        />
        <output htmlFor="study-frame-n" className="text-sm tabular-nums" data-testid="frame-number">
          {t("imaging.frame", { n, total })}
        </output>
        <button type="submit" className="btn-secondary px-3">
          {t("imaging.show")}
        </button>
      </Form>

      <div className="flex flex-wrap gap-2 text-sm">
        <Link
          to={link({ z: ZOOMS[Math.max(0, ZOOMS.indexOf(state.z as 1) - 1)] })}
          preventScrollReset
          className="btn-secondary px-3"
        >
          {t("imaging.zoomOut")}
        </Link>
        <Link
          to={link({ z: ZOOMS[Math.min(ZOOMS.length - 1, ZOOMS.indexOf(state.z as 1) + 1)] })}
          preventScrollReset
          className="btn-secondary px-3"
          data-testid="zoom-in"
        >
          {t("imaging.zoomIn")}
        </Link>
        {state.z > 1 && (
          <>
            <Link to={link({ x: shift(state.x, -step) })} preventScrollReset className="btn-secondary px-3">
              {t("imaging.panLeft")}
            </Link>
            <Link to={link({ x: shift(state.x, step) })} preventScrollReset className="btn-secondary px-3">
              {t("imaging.panRight")}
            </Link>
            <Link to={link({ y: shift(state.y, -step) })} preventScrollReset className="btn-secondary px-3">
              {t("imaging.panUp")}
            </Link>
            <Link to={link({ y: shift(state.y, step) })} preventScrollReset className="btn-secondary px-3">
              {t("imaging.panDown")}
            </Link>
          </>
        )}
        {(state.z > 1 || state.x !== 50 || state.y !== 50) && (
          <Link to={link({ z: 1, x: 50, y: 50 })} preventScrollReset className="btn-secondary px-3">
            {t("imaging.resetView")}
          </Link>
        )}
      </div>
      <StudyFacts study={study} />
    </section>
  );
}

/** Type, body part, date, counts and the PACS hand-off. */
export function StudyFacts({ study }: { study: Study }) {
  const { t } = useTranslation();
  const pacs = study.pacs.status === "none" ? "" : t(PACS_LABELS[study.pacs.status] ?? "imaging.pacs.queued");
  // Only admins are sent the attempts and the PACS's answer (decision 0057).
  const detail = study.pacs.error
    ? t("imaging.pacs.detail", { attempts: study.pacs.attempts, error: study.pacs.error })
    : "";
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
      {study.modality && (
        <>
          <dt className="font-semibold">{t("imaging.modality")}</dt>
          <dd>{study.modality}</dd>
        </>
      )}
      {study.bodyPart && (
        <>
          <dt className="font-semibold">{t("imaging.bodyPart")}</dt>
          <dd>{study.bodyPart}</dd>
        </>
      )}
      {study.studyDate && (
        <>
          <dt className="font-semibold">{t("imaging.studyDate")}</dt>
          <dd>{study.studyDate}</dd>
        </>
      )}
      <dt className="sr-only">{t("imaging.series")}</dt>
      <dd className="col-span-2" data-testid="study-summary">
        {[
          study.description,
          t("imaging.summary", { count: study.instanceCount, series: study.series.length }),
        ]
          .filter(Boolean)
          .join(" · ")}
      </dd>
      {pacs && (
        <dd className="col-span-2 text-slate-700" data-testid="pacs-status">
          {pacs}
          {detail && (
            <span className="block text-xs text-slate-600" data-testid="pacs-detail">
              {detail}
            </span>
          )}
        </dd>
      )}
    </dl>
  );
}

/** What the images carry about the person (names of fields, never their values). */
export function PersonalFields({ study }: { study: Study }) {
  const { t } = useTranslation();
  const fields = study.personalFields.filter((f) => FIELD_LABELS[f]).map((f) => t(FIELD_LABELS[f]));
  return (
    <section
      className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-amber-950"
      data-testid="personal-fields"
    >
      <h2 className="font-semibold">{t("imaging.carriesTitle")}</h2>
      <p>{fields.length ? t("imaging.carries", { fields: fields.join(", ") }) : t("imaging.carriesNone")}</p>
      {fields.length > 0 && <p className="mt-1 text-sm">{t("imaging.carriesNote")}</p>}
    </section>
  );
}
