/** Repeated views folded into one line of an access trail (decision 0073). */
const seen = {
  times: "{{text}}, {{n}} बार",
  viewedByExpertTimes: "डॉ. {{name}} ने {{n}} बार देखा, {{date}}",
  viewedByAdminTimes: "{{name}} (एडमिन) ने {{n}} बार देखा, {{date}}",
  openedViaTimes: "आपके लिंक से {{n}} बार खोला गया, {{date}}",
  openedViaForTimes: "{{label}} के लिए बने आपके लिंक से {{n}} बार खोला गया, {{date}}",
};
export default seen;
