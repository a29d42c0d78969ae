/**
 * The image viewer's state lives in the page's address (decision 0039), so every control works
 * without JavaScript as a link or a GET form: s = series (from 0), n = image in the series (from
 * 1), p = window preset, z = zoom (1, 2, 4), x/y = where the zoomed view sits (0–100, 50 = middle).
 */
export const VIEWER_PRESETS = ["default", "lung", "bone", "soft", "brain"] as const;
export type ViewerPreset = (typeof VIEWER_PRESETS)[number];
export const ZOOMS = [1, 2, 4] as const;

export type ViewerState = { s: number; n: number; p: ViewerPreset; z: number; x: number; y: number };

type SeriesShape = { instances: { id: string; frames: number }[]; frames: number };

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const intOr = (v: string | null, d: number) => {
  const n = Number(v);
  return v !== null && Number.isInteger(n) ? n : d;
};

export function viewerState(params: URLSearchParams, series: SeriesShape[]): ViewerState {
  const s = clamp(intOr(params.get("s"), 0), 0, Math.max(0, series.length - 1));
  const total = series[s]?.frames ?? 1;
  const p = params.get("p");
  const z = intOr(params.get("z"), 1);
  return {
    s,
    n: clamp(intOr(params.get("n"), 1), 1, Math.max(1, total)),
    p: (VIEWER_PRESETS as readonly string[]).includes(p ?? "") ? (p as ViewerPreset) : "default",
    z: (ZOOMS as readonly number[]).includes(z) ? z : 1,
    x: clamp(intOr(params.get("x"), 50), 0, 100),
    y: clamp(intOr(params.get("y"), 50), 0, 100),
  };
}

/** The n-th image of a series (from 1) as an instance and a frame within it. */
export function frameAt(series: SeriesShape, n: number): { instance: string; frame: number } | null {
  let left = n - 1;
  for (const i of series.instances) {
    if (left < i.frames) return { instance: i.id, frame: left };
    left -= i.frames;
  }
  return null;
}

export function frameUrl(reportId: string, at: { instance: string; frame: number }, preset: ViewerPreset) {
  return `/api/v1/report/${encodeURIComponent(reportId)}/study/frames/${encodeURIComponent(at.instance)}/${at.frame}.png?preset=${preset}`;
}

/** The address with some of the state changed (other parameters of the page kept). */
export function withState(search: string, state: ViewerState, change: Partial<ViewerState>): string {
  const params = new URLSearchParams(search);
  const next = { ...state, ...change };
  for (const [k, v] of Object.entries(next)) params.set(k, String(v));
  return `?${params.toString()}`;
}
