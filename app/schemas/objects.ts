import { z } from "zod";
import { ACCOUNT_TYPES } from "~/db/types";
import { REPORT_TYPES } from "./reports";

/** Response objects of the contract, for the OpenAPI document and for tests that check real responses. */
export const userObject = z.object({
  _id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
  accountType: z.enum(ACCOUNT_TYPES),
  contactNumber: z.string(),
  countryCode: z.string(),
  image: z.string().nullable(),
  approved: z.boolean(),
  additionalDetails: z.object({
    about: z.string().nullable(),
    gender: z.string().nullable(),
    dateOfBirth: z.string().nullable(),
    contactNumber: z.string().nullable(),
  }),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
});

const person = z.object({ _id: z.string(), firstName: z.string(), lastName: z.string() });

export const reportObject = z.object({
  _id: z.string(),
  reportType: z.enum(REPORT_TYPES),
  description: z.string().nullable(),
  phoneNumber: z.string(),
  status: z.enum(["Pending", "Reviewed"]),
  review: z.string().nullable(),
  reportUrl: z.string(),
  resourceType: z.enum(["raw", "image"]),
  fileName: z.string(),
  mimeType: z.string(),
  size: z.number().int(),
  patient: person.extend({ email: z.string() }),
  expert: person.nullable(),
  createdAt: z.string().datetime(),
  updatedAt: z.string().datetime(),
  reviewedAt: z.string().datetime().nullable(),
});

export const paginationObject = z.object({
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const errorObject = z.object({
  success: z.literal(false),
  message: z.string(),
  errors: z.record(z.array(z.string())).optional(),
});

export const contactMessageObject = z.object({
  _id: z.string(),
  name: z.string(),
  email: z.string(),
  message: z.string(),
  userId: z.string().nullable(),
  createdAt: z.string().datetime(),
});

export const callbackRequestObject = z.object({
  _id: z.string(),
  name: z.string(),
  countryCode: z.string(),
  phoneNumber: z.string(),
  message: z.string().nullable(),
  userId: z.string().nullable(),
  createdAt: z.string().datetime(),
});
