/** Repeated views folded into one line of an access trail (decision 0073). */
const seen = {
  times: "{{text}}, {{n}} বার",
  viewedByExpertTimes: "ডা. {{name}} {{n}} বার দেখেছেন, {{date}}",
  viewedByAdminTimes: "{{name}} (অ্যাডমিন) {{n}} বার দেখেছেন, {{date}}",
  openedViaTimes: "আপনার লিংক দিয়ে {{n}} বার খোলা হয়েছে, {{date}}",
  openedViaForTimes: "{{label}}-এর জন্য তৈরি আপনার লিংক দিয়ে {{n}} বার খোলা হয়েছে, {{date}}",
};
export default seen;
