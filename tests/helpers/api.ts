/** Tiny JSON client for the /api/v1 tests. */
export function apiClient(base: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    token?: string,
    headers: Record<string, string> = {},
  ) => {
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
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = { raw: text };
    }
    return { status: res.status, headers: res.headers, body: json };
  };
  return {
    get: (p: string, token?: string) => call("GET", p, undefined, token),
    post: (p: string, body?: unknown, token?: string, headers?: Record<string, string>) =>
      call("POST", p, body ?? {}, token, headers),
    put: (p: string, body?: unknown, token?: string) => call("PUT", p, body ?? {}, token),
    del: (p: string, body?: unknown, token?: string) => call("DELETE", p, body, token),
    call,
  };
}

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
    extra?: Record<string, unknown>;
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
