/** Repeated views folded into one line of an access trail (decision 0073). */
const seen = {
  times: "{{text}}, {{n}} times",
  viewedByExpertTimes: "Viewed by Dr. {{name}}, {{n}} times, {{date}}",
  viewedByAdminTimes: "Viewed by {{name}} (Admin), {{n}} times, {{date}}",
  openedViaTimes: "Opened via your link, {{n}} times, {{date}}",
  openedViaForTimes: "Opened via your link for {{label}}, {{n}} times, {{date}}",
};
export default seen;
