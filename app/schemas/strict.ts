import { parseWithZod, unstable_coerceFormValue } from "@conform-to/zod";
import { z } from "zod";

/**
 * Yes/no fields and lists, decided in ONE place for the whole app (decision 0024): every boolean of
 * every input schema is `strictBoolean()`, every list `strictArray()`. In JSON a boolean is only
 * `true` or `false` and a list only an array; anything else ("yes", 1, a string for a list) is a
 * 400 naming the field — never a silent default.
 *
 * Form posts are text: they reach the same schemas through `formSchema()` / `parseFormData()`
 * (Conform's coercion with our boolean rule), where a ticked checkbox ("on") and "true" mean yes,
 * "false" no, an empty or absent field is absent, and repeated fields make a list. Screens, the
 * multipart upload and the resumable upload's metadata all go through here; JSON never does.
 */
export const NOT_BOOLEAN = "validation.notBoolean";
export const NOT_LIST = "validation.notList";

/** true or false, nothing else (`message`: the i18n key shown on the field). */
export function strictBoolean(message: string = NOT_BOOLEAN) {
  return z.boolean({ required_error: message, invalid_type_error: message });
}

/** An array of `item`, nothing else (a form's repeated fields become one through formSchema). */
export function strictArray<T extends z.ZodTypeAny>(item: T, message: string = NOT_LIST) {
  return z.array(item, { required_error: message, invalid_type_error: message });
}

/** A form's text for a yes/no field: "on" (a ticked checkbox) or "true" is yes, "false" no; anything else stays as sent, and fails. */
export function formBoolean(value: unknown): unknown {
  if (value === "on" || value === "true") return true;
  if (value === "false") return false;
  return value;
}

const formSchemas = new WeakMap<z.ZodTypeAny, z.ZodTypeAny>();

/** The schema for text input (a form post, multipart fields, upload metadata). */
export function formSchema<S extends z.ZodTypeAny>(schema: S): S {
  let coerced = formSchemas.get(schema);
  if (!coerced) {
    coerced = unstable_coerceFormValue(schema, { defaultCoercion: { boolean: formBoolean } });
    formSchemas.set(schema, coerced);
  }
  return coerced as S;
}

/** Conform's parseWithZod with the rule above (for every screen, server and browser alike). */
export function parseFormData<S extends z.ZodTypeAny>(
  payload: FormData | URLSearchParams,
  options: { schema: S },
) {
  return parseWithZod(payload, { schema: formSchema(options.schema), disableAutoCoercion: true });
}
