import { provideCallSources } from "../calls/index.server";
import { opinionsForCall } from "./phone-opinions.server";
import { answerStepByCall, reminderCallStep } from "./step-reminder-calls.server";

/**
 * Consultation's part of what a call says (decision 0118): the opinions a call may tell and a
 * reminder's step, in words of her language, and her keypad answer to the step. Loaded with the
 * context's index.
 */
provideCallSources({
  opinions: (patientId, locale) => opinionsForCall(patientId, locale),
  step: reminderCallStep,
  answerStep: answerStepByCall,
});
