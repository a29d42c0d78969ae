import type { z, ZodTypeAny } from "zod";

/** The shape of one row of the contract (app/openapi.server.ts builds the document from the rows). */
export type Method = "get" | "head" | "post" | "put" | "patch" | "delete" | "options";

/**
 * A tus 1.0.0 operation (resumable uploads, decision 0015): protocol headers in, bytes as
 * application/offset+octet-stream, answers that are mostly headers.
 */
export type TusOperation = {
  headers?: z.AnyZodObject;
  octetBody?: boolean;
  responses: Record<number, { description: string; headers?: Record<string, string>; data?: ZodTypeAny }>;
};

/** One row per endpoint of the contract: the OpenAPI document and the route test are built from it. */
export type Endpoint = {
  method: Method;
  path: string;
  who: string;
  summary: string;
  auth: boolean;
  body?: ZodTypeAny;
  /** The JSON body may be left out. */
  bodyOptional?: boolean;
  multipart?: { fileField: string; fields?: ZodTypeAny; types: string };
  list?: boolean;
  query?: ZodTypeAny;
  data?: ZodTypeAny;
  status?: 200 | 201;
  /** A second success: 202 Accepted, with its own data (work that is carried out later). */
  accepted?: { description: string; data: ZodTypeAny };
  errors: number[];
  /** Takes an `Idempotency-Key` (decision 0062): the header, and the 422/409 it may answer. */
  idempotent?: boolean;
  /** A create the offline outbox calls: its headers and the held refusal (decision 0065). */
  held?: boolean;
  binary?: boolean;
  extra?: Record<string, ZodTypeAny>;
  /** Set when the path alone does not name the operation (tus: one path, several methods). */
  operationId?: string;
  tus?: TusOperation;
  /** A success body that is not the contract's JSON envelope: media type → schema (FHIR, ZIP). */
  content?: { description: string; types: Record<string, ZodTypeAny> };
};
