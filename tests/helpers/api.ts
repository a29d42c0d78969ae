import { samplePdf } from "./files";
import { createCareBridgeClient, type paths } from "../../clients/typescript/src";

/**
 * The /api/v1 tests' client, on the published one (clients/typescript). `get`, `post`, `put`, `del`
 * and `call` are typed against the OpenAPI document: a path must be documented for its method (ids
 * filled in: `/report/${id}/file` matches `/report/{reportId}/file`; a query string may follow), and
 * a body must be what the document accepts — so `tsc` over the tests fails when the contract moves.
 * `raw` is the deliberate escape for bad input (wrong types, unknown fields, cut-off or non-JSON
 * bodies, undocumented paths or methods): it sends exactly what it is given.
 * Every call answers `{ status, headers, body }`; `body` is the parsed JSON, or `{ raw: text }`.
 */
export function apiClient(base: string) {
  const client = createCareBridgeClient({ baseUrl: base });

  const typed = async (
    method: Method,
    path: string,
    body: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<ApiResult> => {
    return resent(async () => {
      let answer: Response | undefined;
      const { response } = await client.request(method as "get", path as "/openapi.json", {
        body: body as never,
        headers: token ? { ...headers, Authorization: `Bearer ${token}` } : headers,
        parseAs: "stream",
        // The answer is read here, the same way for successes and errors (openapi-fetch reads an
        // error's body itself; the test wants every answer's text).
        middleware: [{ onResponse: ({ response }) => void (answer = response.clone()) }],
      });
      return result(answer ?? response);
    });
  };

  const raw = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ): Promise<ApiResult> => {
    const h: Record<string, string> = { ...headers };
    if (body !== undefined && !(body instanceof FormData)) h["Content-Type"] ??= "application/json";
    if (token) h.Authorization = `Bearer ${token}`;
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: h,
      body:
        body === undefined
          ? undefined
          : body instanceof FormData
            ? body
            : typeof body === "string"
              ? body
              : JSON.stringify(body),
    });
    return result(res);
  };

  return {
    get: <P extends ApiPath<"get">>(p: P, token?: string) => typed("get", p, undefined, token),
    post: <P extends ApiPath<"post">>(
      p: P,
      body?: BodyOf<"post", P>,
      token?: string,
      headers?: Record<string, string>,
    ) => typed("post", p, body ?? {}, token, headers),
    put: <P extends ApiPath<"put">>(p: P, body?: BodyOf<"put", P>, token?: string) =>
      typed("put", p, body ?? {}, token),
    del: <P extends ApiPath<"delete">>(p: P, body?: BodyOf<"delete", P>, token?: string) =>
      typed("delete", p, body, token),
    /** A documented call with its method spelled out (tus: HEAD, PATCH). */
    call: <M extends Uppercase<Method>, P extends ApiPath<Lowercase<M>>>(
      method: M,
      p: P,
      body?: BodyOf<Lowercase<M>, P>,
      token?: string,
      headers?: Record<string, string>,
    ) => typed(method.toLowerCase() as Method, p, body, token, headers),
    raw,
  };
}

export type ApiResult = { status: number; headers: Headers; body: any };

/**
 * A call sent again when it never reached the server. A test that just made a large file
 * synchronously (a corpus photo takes seconds on a loaded machine) held the event loop past the
 * server's keep-alive (5 s); fetch then writes to idle sockets the server has closed, and the write
 * fails (EPIPE, a reset, "other side closed") before the server read a byte of the request. Each
 * such failure retires one idle socket.
 */
async function resent<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 5 || !["EPIPE", "ECONNRESET", "UND_ERR_SOCKET"].includes(code ?? "")) throw err;
    }
  }
}

async function result(res: Response): Promise<ApiResult> {
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: res.status, headers: res.headers, body: json };
}

type Method = "get" | "put" | "post" | "delete" | "patch" | "head";

/** A documented path with its `{param}` segments open: "/report/{reportId}/file" → `/report/${string}/file`. */
type Filled<S extends string> = S extends `${infer A}{${string}}${infer B}` ? `${A}${string}${Filled<B>}` : S;
type Concrete<S extends string> = Filled<S> | `${Filled<S>}?${string}`;

/** The documented paths that have method M. */
type Documented<M extends Method> = {
  [K in keyof paths]: [NonNullable<paths[K][M]>] extends [never] ? never : K;
}[keyof paths];

/** The paths a test may call with method M: a documented one with its ids filled in. */
type ApiPath<M extends Method> = { [K in Documented<M>]: Concrete<K> }[Documented<M>];

/** The operation(s) a concrete path names. */
type OperationOf<M extends Method, P extends string> = {
  [K in Documented<M>]: P extends Concrete<K> ? NonNullable<paths[K][M]> : never;
}[Documented<M>];

/** What the document accepts as the body: its JSON, FormData for a multipart upload, nothing when it takes none. */
type BodyOf<M extends Method, P extends string> = RequestBody<OperationOf<M, P>>;
export type ApiBody<M extends Method, P extends ApiPath<M>> = BodyOf<M, P>;
type RequestBody<O> = O extends { requestBody?: infer R }
  ? [NonNullable<R>] extends [never]
    ? Record<string, never>
    : NonNullable<R> extends { content: infer C }
      ? C extends { "application/json": infer J }
        ? J
        : C extends { "multipart/form-data": unknown }
          ? FormData
          : C[keyof C]
      : never
  : never;

export const strongPassword = "Sturdy-pass-2026";

/** Signs a user up through the API (send-otp, mail, signup) and logs in; returns the token. */
export async function signupViaApi(
  api: ReturnType<typeof apiClient>,
  smtp: { waitFor: (to: string, m?: RegExp) => Promise<{ subject: string }> },
  codeFrom: (m: any) => string,
  user: {
    email: string;
    accountType?: "Patient" | "Expert";
    firstName?: string;
    lastName?: string;
    /** More signup fields (e.g. an expert's specialties and registration). */
    extra?: Partial<ApiBody<"post", "/auth/signup">>;
  },
) {
  const sent = await api.post("/auth/send-otp", { email: user.email, checkUserPresent: true });
  if (sent.status !== 200) throw new Error(`send-otp ${sent.status} ${JSON.stringify(sent.body)}`);
  const code = codeFrom(await smtp.waitFor(user.email, /verification code/));
  const res = await api.post("/auth/signup", {
    accountType: user.accountType ?? "Patient",
    firstName: user.firstName ?? "Test",
    lastName: user.lastName ?? "User",
    email: user.email,
    contactNumber: "9876543210",
    password: strongPassword,
    confirmPassword: strongPassword,
    otp: code,
    // An admin approves only experts with a registration number; tests that need one
    // without pass `extra` (e.g. `{}`).
    ...(user.accountType === "Expert" && user.extra === undefined
      ? {
          registrationNumber: `TEST-${
            user.email
              .split("@")[0]
              .replace(/[^A-Za-z0-9]/g, "")
              .slice(0, 30) || "X"
          }`,
        }
      : {}),
    ...user.extra,
  });
  if (res.status !== 201) throw new Error(`signup ${res.status} ${JSON.stringify(res.body)}`);
  const login = await api.post("/auth/login", { email: user.email, password: strongPassword });
  return { token: login.body.token as string, user: res.body.data };
}

/** An expert's signup fields: a pathologist with a registration an admin can approve. */
export const pathologist = (registrationNumber: string, yearsOfPractice = 7) => ({
  specialties: ["Pathology"],
  registrationNumber,
  registrationCouncil: "Karnataka Medical Council",
  yearsOfPractice,
});

/**
 * Signs up each person `<key>@<domain>` through the API (signupViaApi) and records their token and
 * id under the key; an expert's `extra` carries their signup fields (e.g. `pathologist(...)`).
 */
export async function signupPeople(
  api: ReturnType<typeof apiClient>,
  smtp: Parameters<typeof signupViaApi>[1],
  codeFrom: (m: any) => string,
  domain: string,
  people: readonly (readonly [key: string, accountType: "Patient" | "Expert", extra?: object])[],
  into: { tok: Record<string, string>; ids: Record<string, string> },
) {
  for (const [key, accountType, extra] of people) {
    const r = await signupViaApi(api, smtp, codeFrom, {
      email: `${key}@${domain}`,
      accountType,
      extra: extra as never,
    });
    into.tok[key] = r.token;
    into.ids[key] = r.user._id;
  }
}

/** Uploads the sample PDF as a blood test for the token's own profile (multipart, as a phone sends it). */
export function uploadSamplePdf(api: ReturnType<typeof apiClient>, token: string) {
  const form = new FormData();
  form.set("reportType", "Blood Test");
  form.set("phoneNumber", "9876543210");
  form.set("consent", "true");
  form.set("report", new Blob([new Uint8Array(samplePdf())], { type: "application/pdf" }), "r.pdf");
  return api.raw("POST", "/report/upload-report", form, token);
}
